package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

var errBoom = errors.New("boom")

func jobsFinishedVec() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "jobs_finished_total"}, []string{"runner", "result"})
}

// TestCountedJobsCountsEachJobOnce: the controllers ask a Job's state on every reconcile, so a
// finished Job is counted at its first finished status only, until it is deleted.
func TestCountedJobsCountsEachJobOnce(t *testing.T) {
	t.Parallel()
	type call struct {
		op    string // status or delete
		job   string
		state ports.JobState
		err   error
	}
	cases := []struct {
		name                string
		calls               []call
		succeeded, failures float64
	}{
		{"a running Job is not counted", []call{{"status", "a", ports.JobRunning, nil}}, 0, 0},
		{"a failed Job polled three times counts once",
			[]call{{"status", "a", ports.JobFailed, nil}, {"status", "a", ports.JobFailed, nil}, {"status", "a", ports.JobFailed, nil}}, 0, 1},
		{"two Jobs count once each",
			[]call{{"status", "a", ports.JobSucceeded, nil}, {"status", "b", ports.JobFailed, nil}, {"status", "a", ports.JobSucceeded, nil}}, 1, 1},
		{"a Job deleted and run again under its name counts again",
			[]call{{"status", "a", ports.JobFailed, nil}, {"delete", "a", "", nil}, {"status", "a", ports.JobSucceeded, nil}}, 1, 1},
		{"a failed delete keeps the Job counted",
			[]call{{"status", "a", ports.JobFailed, nil}, {"delete", "a", "", errBoom}, {"status", "a", ports.JobFailed, nil}}, 0, 1},
		{"a status error counts nothing", []call{{"status", "a", ports.JobFailed, errBoom}}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runner := mocks.NewMockJobRunner(gomock.NewController(t))
			vec := jobsFinishedVec()
			jobs := countJobs(runner, vec, shared.JobRunnerResolver)
			ctx := context.Background()
			for _, k := range c.calls {
				ref := ports.JobRef{Name: k.job}
				if k.op == "delete" {
					runner.EXPECT().Delete(ctx, ref).Return(k.err)
					assert.ErrorIs(t, jobs.Delete(ctx, ref), k.err)
					continue
				}
				runner.EXPECT().Status(ctx, ref).Return(ports.JobStatus{State: k.state}, k.err)
				st, err := jobs.Status(ctx, ref)
				require.ErrorIs(t, err, k.err)
				assert.Equal(t, k.state, st.State, "the state passes through")
			}
			assert.InDelta(t, c.succeeded, testutil.ToFloat64(vec.WithLabelValues(shared.JobRunnerResolver, shared.JobSucceeded)), 0)
			assert.InDelta(t, c.failures, testutil.ToFloat64(vec.WithLabelValues(shared.JobRunnerResolver, shared.JobFailed)), 0)
		})
	}
}

// TestCountedJobsForgetsPastItsBound: the names remembered stay bounded.
func TestCountedJobsForgetsPastItsBound(t *testing.T) {
	t.Parallel()
	runner := mocks.NewMockJobRunner(gomock.NewController(t))
	runner.EXPECT().Status(gomock.Any(), gomock.Any()).Return(ports.JobStatus{State: ports.JobFailed}, nil).AnyTimes()
	jobs := countJobs(runner, jobsFinishedVec(), shared.JobRunnerValidation)
	for i := range maxCountedJobs + 10 {
		_, err := jobs.Status(context.Background(), ports.JobRef{Name: fmt.Sprintf("job-%d", i)})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, len(jobs.seen), maxCountedJobs)
}

// tokens is a TokenSource returning err, or a token.
type tokens struct{ err error }

func (s tokens) Token(context.Context) (oci.ECRToken, error) {
	if s.err != nil {
		return oci.ECRToken{}, s.err
	}
	return oci.ECRToken{Login: oci.Login{Username: "AWS", Password: "t"}, ExpiresAt: time.Unix(2_000_000_000, 0)}, nil
}

// repoCreds is a RepoCredsWriter returning err.
type repoCreds struct{ err error }

func (w repoCreds) WriteRepoCreds(context.Context, oci.Login) error { return w.err }

// TestRegistryRefreshesAreCounted runs one refresh of the aws provider with the counting
// token sources and repo-creds writer newECR assembles: the push credential counts its token
// request, the pull credential counts its write into Argo CD's repo-creds Secret, and only a
// success moves the credential's last-refresh time and exports its token's expiry.
func TestRegistryRefreshesAreCounted(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	cases := []struct {
		name              string
		push, pull, write error
		want              map[[2]string]float64
		refreshed         map[string]float64
	}{
		{"both credentials refresh", nil, nil, nil,
			map[[2]string]float64{{"push", "success"}: 1, {"pull", "success"}: 1},
			map[string]float64{"push": float64(now.Unix()), "pull": float64(now.Unix())}},
		{"the pull role's token request fails", nil, errBoom, nil,
			map[[2]string]float64{{"push", "success"}: 1, {"pull", "failure"}: 1},
			map[string]float64{"push": float64(now.Unix())}},
		{"the repo-creds write fails", nil, nil, errBoom,
			map[[2]string]float64{{"push", "success"}: 1, {"pull", "failure"}: 1},
			map[string]float64{"push": float64(now.Unix())}},
		{"the operator's own token request fails", errBoom, nil, nil,
			map[[2]string]float64{{"push", "failure"}: 1, {"pull", "success"}: 1},
			map[string]float64{"pull": float64(now.Unix())}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := refreshMetrics{
				refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "refreshes_total"}, []string{"credential", "result"}),
				refreshed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "refreshed"}, []string{"credential"}),
				expiry:    prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "expiry"}, []string{"credential"}),
				clock:     fixedClock(now),
			}
			issued := &issuedToken{}
			ecr := oci.NewECR(
				countedTokens{TokenSource: tokens{c.push}, metrics: m, credential: shared.CredentialPush, successes: true},
				countedTokens{TokenSource: tokens{c.pull}, metrics: m, credential: shared.CredentialPull, issued: issued},
				countedRepoCreds{RepoCredsWriter: repoCreds{c.write}, metrics: m, issued: issued}, fixedClock(now))
			_, _ = ecr.Refresh(context.Background())
			for _, cred := range []string{shared.CredentialPush, shared.CredentialPull} {
				for _, res := range []string{shared.ResultSuccess, shared.ResultFailure} {
					assert.InDelta(t, c.want[[2]string{cred, res}], testutil.ToFloat64(m.refreshes.WithLabelValues(cred, res)), 0,
						"%s %s", cred, res)
				}
			}
			assert.Equal(t, len(c.refreshed), testutil.CollectAndCount(m.refreshed), "a last-refresh time only after a success")
			for cred, ts := range c.refreshed {
				assert.InDelta(t, ts, testutil.ToFloat64(m.refreshed.WithLabelValues(cred)), 0)
			}
			assert.Equal(t, len(c.refreshed), testutil.CollectAndCount(m.expiry),
				"an expiry only for a credential in use: the pull token once written")
			for cred := range c.refreshed {
				assert.InDelta(t, 2_000_000_000, testutil.ToFloat64(m.expiry.WithLabelValues(cred)), 0, "%s token's expiresAt", cred)
			}
		})
	}
}

// TestStateCollector reads the runtime's conditions, the open rollouts' deadlines and the
// rollouts the change policy holds from a cache at scrape time, only once the replica is the
// leader.
func TestStateCollector(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	deadline := metav1.NewTime(time.Unix(1_900_000_000, 0))
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	cr.Status.Conditions = []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "RollingOut"},
		{Type: "Stalled", Status: metav1.ConditionTrue, Reason: "AICRTimeout"},
	}
	rollout := func(name string, phase aicrv1alpha1.Phase, outcome string) *aicrv1alpha1.RuntimeRollout {
		ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if outcome != "" {
			ro.Labels = map[string]string{aicrv1alpha1.LabelOutcome: outcome}
		}
		ro.Spec.Deadline, ro.Status.Phase = deadline, phase
		return ro
	}
	stalled := func(ro *aicrv1alpha1.RuntimeRollout, reason string) *aicrv1alpha1.RuntimeRollout {
		ro.Status.Conditions = []metav1.Condition{{Type: "Stalled", Status: metav1.ConditionTrue, Reason: reason}}
		return ro
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(cr,
		rollout("rollout-a", aicrv1alpha1.PhaseAwaitingApproval, ""),
		rollout("rollout-b", "", ""),
		rollout("rollout-c", aicrv1alpha1.PhaseSucceeded, "Succeeded"),
		stalled(rollout("rollout-d", aicrv1alpha1.PhaseProgressing, ""), "ProtectedWorkloadsRunning"),
		stalled(rollout("rollout-e", aicrv1alpha1.PhaseProgressing, ""), "OutsideChangeWindow"),
		stalled(rollout("rollout-f", aicrv1alpha1.PhaseProgressing, ""), "ForeignObject"),
		stalled(rollout("rollout-g", aicrv1alpha1.PhaseFailed, "Failed"), "ProtectedWorkloadsRunning"),
	).Build()

	const want = `
# HELP aicr_operator_rollout_deadline_timestamp_seconds Unix time of the deadline of each rollout without an outcome, labelled with its name and phase.
# TYPE aicr_operator_rollout_deadline_timestamp_seconds gauge
aicr_operator_rollout_deadline_timestamp_seconds{phase="AwaitingApproval",rollout="rollout-a"} 1.9e+09
aicr_operator_rollout_deadline_timestamp_seconds{phase="Pending",rollout="rollout-b"} 1.9e+09
aicr_operator_rollout_deadline_timestamp_seconds{phase="Progressing",rollout="rollout-d"} 1.9e+09
aicr_operator_rollout_deadline_timestamp_seconds{phase="Progressing",rollout="rollout-e"} 1.9e+09
aicr_operator_rollout_deadline_timestamp_seconds{phase="Progressing",rollout="rollout-f"} 1.9e+09
# HELP aicr_operator_rollout_held 1 for each rollout without an outcome whose next step the runtime's change policy holds (outside a change window, or while protected workloads run), labelled with its name and the reason.
# TYPE aicr_operator_rollout_held gauge
aicr_operator_rollout_held{reason="OutsideChangeWindow",rollout="rollout-e"} 1
aicr_operator_rollout_held{reason="ProtectedWorkloadsRunning",rollout="rollout-d"} 1
# HELP aicr_operator_runtime_condition 1 for each condition of the ClusterRuntime, labelled with its type, status and reason.
# TYPE aicr_operator_runtime_condition gauge
aicr_operator_runtime_condition{reason="AICRTimeout",status="True",type="Stalled"} 1
aicr_operator_runtime_condition{reason="RollingOut",status="False",type="Ready"} 1
`
	cases := []struct {
		name    string
		observe bool
		elected bool
		want    string
	}{
		{"nothing before the operator hands it a reader", false, false, ""},
		{"nothing on a replica that is not the leader", true, false, ""},
		{"the leader reports the runtime's conditions, the open rollouts' deadlines and holds", true, true, want},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := shared.NewStateCollector()
			elected := make(chan struct{})
			if c.elected {
				close(elected)
			}
			if c.observe {
				s.Observe(reader, elected)
			}
			require.NoError(t, testutil.CollectAndCompare(s, strings.NewReader(c.want)))
		})
	}
}
