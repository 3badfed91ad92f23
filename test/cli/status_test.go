package cli_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// progressing is the status of a rollout in its first step.
func progressing() *aicrv1alpha1.RuntimeRolloutStatus {
	return &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 1,
		Message: "syncing gpu-operator", StartedAt: ts(now),
		Releases: []aicrv1alpha1.ReleaseStatus{{Release: "gpu-operator", State: aicrv1alpha1.ReleaseInFlight}}}
}

// TestStatus: one line per rollout, exit 0 unless it ended without succeeding or is stalled.
func TestStatus(t *testing.T) {
	needEnv(t)
	cases := []struct {
		name    string
		fx      func(ro *aicrv1alpha1.RuntimeRollout) fixture
		stalled string
		want    string
		refused string
	}{
		{name: "progressing", fx: func(ro *aicrv1alpha1.RuntimeRollout) fixture {
			return fixture{ro: ro, approval: approved(), status: progressing()}
		}, want: "Progressing, step 1/3 gpu-operator InFlight: syncing gpu-operator"},
		{name: "succeeded", fx: func(ro *aicrv1alpha1.RuntimeRollout) fixture {
			return fixture{ro: ro, approval: approved(), outcome: "Succeeded",
				status: &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseSucceeded, Message: "rolled out"}}
		}, want: "Succeeded: rolled out"},
		{name: "failed", fx: func(ro *aicrv1alpha1.RuntimeRollout) fixture {
			return fixture{ro: ro, approval: approved(), outcome: "Failed",
				status: &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseFailed, Message: "gpu-operator degraded"}}
		}, want: "Failed: gpu-operator degraded", refused: "ended without succeeding: Failed: gpu-operator degraded"},
		{name: "awaiting-approval", fx: func(ro *aicrv1alpha1.RuntimeRollout) fixture {
			return fixture{ro: ro, status: &aicrv1alpha1.RuntimeRolloutStatus{
				Phase: aicrv1alpha1.PhaseAwaitingApproval, Message: "needs an approval"}}
		}, stalled: "AwaitingApproval", want: "AwaitingApproval: needs an approval"},
		{name: "stalled", fx: func(ro *aicrv1alpha1.RuntimeRollout) fixture {
			return fixture{ro: ro, approval: approved(), status: progressing()}
		}, stalled: "EngineMissing", want: "Progressing, step 1/3 gpu-operator InFlight: syncing gpu-operator",
			refused: "is stalled: EngineMissing: the engine is gone"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			created := tt.fx(newRollout()).create(t)
			t.Cleanup(func() { deleteRollout(t, created) })
			if tt.stalled != "" {
				stall(t, created, tt.stalled, "the engine is gone")
			}
			r := run(approverUser, "status", created)
			assert.Equal(t, created+": "+tt.want+"\n", r.stdout)
			if tt.refused == "" {
				require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
				assert.Empty(t, r.stderr)
				return
			}
			assert.Equal(t, 1, r.code)
			assert.Equal(t, "error: rollout "+created+" "+tt.refused+"\n", r.stderr)
		})
	}
	requireRefused(t, run(approverUser, "status", "rollout-"+transition+"-99"), `"rollout-`+transition+`-99" not found`)
	requireRefused(t, run(approverUser, "status", "rollout-"+transition+"-99", "-w", "--timeout", "-1s"),
		"--timeout must not be negative")
}

// stall has the operator report the rollout Stalled with reason for its current spec.
func stall(t *testing.T, name, reason, message string) {
	t.Helper()
	generation := getRollout(t, name).Generation
	setStatus(t, name, func(st *aicrv1alpha1.RuntimeRolloutStatus) {
		st.Conditions = []metav1.Condition{{Type: aicrv1alpha1.ConditionStalled, Status: metav1.ConditionTrue,
			Reason: reason, Message: message, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now)}}
	})
}

// TestStatusWatch: status -w prints a line per change the operator makes and returns with the
// rollout's outcome, its deletion or a refused watch.
func TestStatusWatch(t *testing.T) {
	needEnv(t)
	cases := []struct {
		name string
		// then is what happens to the rollout once status -w printed its first line.
		then     func(t *testing.T, name string)
		wantCode int
		wantLine string
		wantErr  string
	}{
		{name: "succeeds", then: func(t *testing.T, name string) {
			setStatus(t, name, func(st *aicrv1alpha1.RuntimeRolloutStatus) {
				st.CurrentStep, st.Message = 2, "syncing nvsentinel"
				st.Releases = []aicrv1alpha1.ReleaseStatus{{Release: "gpu-operator", State: aicrv1alpha1.ReleaseReady},
					{Release: "nvsentinel", State: aicrv1alpha1.ReleaseInFlight}}
			})
			end(t, name, aicrv1alpha1.PhaseSucceeded, "rolled out")
		}, wantLine: "Succeeded: rolled out"},
		{name: "fails", then: func(t *testing.T, name string) {
			end(t, name, aicrv1alpha1.PhaseFailed, "gpu-operator degraded")
		}, wantCode: 1, wantLine: "Failed: gpu-operator degraded",
			wantErr: "ended without succeeding: Failed: gpu-operator degraded"},
		{name: "stalls", then: func(t *testing.T, name string) {
			stall(t, name, "EngineMissing", "the engine is gone")
		}, wantCode: 1, wantErr: "is stalled: EngineMissing: the engine is gone"},
		{name: "is-deleted", then: func(t *testing.T, name string) {
			require.NoError(t, clientFor(operatorConfig()).Delete(context.Background(),
				&aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}))
		}, wantCode: 1, wantErr: "was deleted"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			name := fixture{ro: newRollout(), approval: approved(), status: progressing()}.create(t)
			t.Cleanup(func() { deleteRollout(t, name) })
			f := startFollowing(approverUser, name, "-w")
			require.Equal(t, name+": Progressing, step 1/3 gpu-operator InFlight: syncing gpu-operator", f.next(t))
			tt.then(t, name)
			r := f.wait(t)
			assert.Equal(t, tt.wantCode, r.code, "stderr: %s", r.stderr)
			if tt.name == "succeeds" {
				assert.Contains(t, r.stdout, name+": Progressing, step 2/3 nvsentinel InFlight: syncing nvsentinel\n")
			}
			if tt.wantLine != "" {
				assert.True(t, strings.HasSuffix(r.stdout, name+": "+tt.wantLine+"\n"), "stdout: %s", r.stdout)
			}
			if tt.wantErr == "" {
				assert.Empty(t, r.stderr)
			} else {
				assert.Equal(t, "error: rollout "+name+" "+tt.wantErr+"\n", r.stderr)
			}
		})
	}
}

// TestStatusWatch_Ends: a --timeout that passes and a user who may read but not watch end the
// follow with an error instead of following forever.
func TestStatusWatch_Ends(t *testing.T) {
	needEnv(t)
	name := fixture{ro: newRollout(), approval: approved(), status: progressing()}.create(t)
	t.Cleanup(func() { deleteRollout(t, name) })
	line := name + ": Progressing, step 1/3 gpu-operator InFlight: syncing gpu-operator\n"

	r := startFollowing(approverUser, name, "-w", "--timeout", "1ns").wait(t)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, line, r.stdout)
	assert.Equal(t, "error: rollout "+name+" did not end within --timeout (1ns); last seen: "+strings.TrimSuffix(line, "\n")+"\n", r.stderr)

	r = startFollowing(editorUser, name, "-w").wait(t)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, line, r.stdout)
	assert.Contains(t, r.stderr, `error: watch rollout `+name+`: runtimerollouts.operator.aicr.run "`+name+`" is forbidden`)
	assert.Contains(t, r.stderr, `User "editor-eve" cannot watch resource "runtimerollouts"`)
}

// setStatus changes the rollout's status as the operator.
func setStatus(t *testing.T, name string, change func(*aicrv1alpha1.RuntimeRolloutStatus)) {
	t.Helper()
	ro := getRollout(t, name)
	patch := client.MergeFrom(ro.DeepCopy())
	change(&ro.Status)
	require.NoError(t, clientFor(operatorConfig()).Status().Patch(context.Background(), ro, patch))
}

// end ends the rollout as the operator: its phase and message, then its outcome label.
func end(t *testing.T, name string, phase aicrv1alpha1.Phase, message string) {
	t.Helper()
	setStatus(t, name, func(st *aicrv1alpha1.RuntimeRolloutStatus) {
		st.Phase, st.Message, st.CurrentStep = phase, message, 0
		st.CompletedAt = ts(now)
	})
	ro := getRollout(t, name)
	patch := client.MergeFrom(ro.DeepCopy())
	ro.Labels[aicrv1alpha1.LabelOutcome] = string(phase)
	require.NoError(t, clientFor(operatorConfig()).Patch(context.Background(), ro, patch))
}

// following is a status -w running in the background.
type following struct {
	out  *lineWriter
	done chan result
}

// startFollowing runs kubectl aicr status NAME as user with args in the background.
func startFollowing(user, name string, args ...string) *following {
	out := &lineWriter{lines: make(chan string, 64)}
	errOut := &bytes.Buffer{}
	o := cli.NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	o.Bundles = aicr.Reader{}
	o.Now = func() time.Time { return now }
	f := &following{out: out, done: make(chan result, 1)}
	go func() {
		code := cli.Run(context.Background(), o,
			append([]string{"--kubeconfig", kubeconfig, "--as", user, "status", name}, args...))
		f.done <- result{stdout: out.String(), stderr: errOut.String(), code: code}
	}()
	return f
}

// next returns the next line status -w prints.
func (f *following) next(t *testing.T) string {
	t.Helper()
	select {
	case line := <-f.out.lines:
		return line
	case r := <-f.done:
		t.Fatalf("status -w returned %d before printing a line: %s", r.code, r.stderr)
	case <-time.After(time.Minute):
		t.Fatal("status -w printed no line within a minute")
	}
	return ""
}

// wait returns what status -w printed and returned once it ends.
func (f *following) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-f.done:
		return r
	case <-time.After(time.Minute):
		t.Fatal("status -w did not return within a minute")
	}
	return result{}
}

// lineWriter keeps what is written and hands each complete line to lines.
type lineWriter struct {
	mu      sync.Mutex
	all     strings.Builder
	pending string
	lines   chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.pending += string(p)
	for {
		i := strings.IndexByte(w.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- w.pending[:i]
		w.pending = w.pending[i+1:]
	}
}

// String is everything written so far.
func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}
