package cli_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// conflictRun is what runConflicting observed: the command's output and exit code, and how
// often it read and patched the rollout.
type conflictRun struct {
	out, errOut   string
	code          int
	gets, patches int
}

// errModified is the API server's message of a conflicting write.
var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

// runConflicting runs kubectl aicr as alice against a fake API server holding ro whose first
// conflicts patches of the rollout answer 409 Conflict, as the API server does when the
// rollout changed after the command read it.
func runConflicting(t *testing.T, ro *aicrv1alpha1.RuntimeRollout, conflicts int, args ...string) conflictRun {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(aicrv1alpha1.GroupVersion.WithKind("RuntimeRollout"))
	dyn := dynamicfake.NewSimpleDynamicClient(scheme, u)
	var (
		mu sync.Mutex
		r  conflictRun
	)
	dyn.PrependReactor("get", "runtimerollouts", func(clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		r.gets++
		return false, nil, nil
	})
	dyn.PrependReactor("patch", "runtimerollouts", func(clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		r.patches++
		if r.patches <= conflicts {
			return true, nil, apierrors.NewConflict(rolloutGR(), ro.Name, errModified)
		}
		return false, nil, nil
	})
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "selfsubjectreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{
			UserInfo: authenticationv1.UserInfo{Username: "alice"}}}, nil
	})
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Now = func() time.Time { return fakeNow }
	o.Clients = func() (cli.Clients, error) { return cli.Clients{Dynamic: dyn, Kube: kube, Host: "fake"}, nil }
	r.code = cli.Run(context.Background(), o, args)
	r.out, r.errOut = out.String(), errOut.String()
	return r
}

func rolloutGR() schema.GroupResource {
	return aicrv1alpha1.GroupVersion.WithResource("runtimerollouts").GroupResource()
}

// approvedRollout is pendingRollout approved by bob, waiting for alice to acknowledge its
// first step.
func approvedRollout() *aicrv1alpha1.RuntimeRollout {
	ro := pendingRollout()
	expires := fakeDeadline
	ro.Spec.Approval = &aicrv1alpha1.Approval{ApprovedBy: "bob", ExpiresAt: &expires, Reason: "window"}
	ro.Status.Phase = aicrv1alpha1.PhaseAwaitingAcknowledgement
	ro.Status.CurrentStep = 1
	return ro
}

// TestChangeApproval_DecidesAgainOnConflict: every command that changes spec.approval reads
// the rollout again and decides again when its conditional patch conflicts (CLI-3).
func TestChangeApproval_DecidesAgainOnConflict(t *testing.T) {
	t.Parallel()
	name := pendingRollout().Name
	for _, tt := range []struct {
		name    string
		ro      *aicrv1alpha1.RuntimeRollout
		args    []string
		wantOut string
	}{
		{"approve", pendingRollout(), []string{"approve", name, "--expires", "90m", "--reason", "window"},
			"rollout " + name + " approved by alice until 2029-06-01T13:30:00Z\n"},
		{"revoke", approvedRollout(), []string{"revoke", name, "--reason", "rollback"},
			"rollout " + name + " revoked by alice at 2029-06-01T12:00:00Z\n"},
		{"acknowledge", approvedRollout(), []string{"acknowledge", name},
			"rollout " + name + ": gpu-operator acknowledged by alice at 2029-06-01T12:00:00Z\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runConflicting(t, tt.ro, 2, tt.args...)

			require.Equal(t, 0, r.code, r.errOut)
			assert.Equal(t, tt.wantOut, r.out)
			assert.Equal(t, 3, r.patches, "two patches conflict, the third lands")
			assert.Equal(t, 3, r.gets, "the rollout is read again before each decision")
		})
	}
}

// TestChangeApproval_GivesUpAfterFiveConflicts: a rollout that changes under every attempt
// fails the command with the conflict after retry.DefaultRetry's five attempts.
func TestChangeApproval_GivesUpAfterFiveConflicts(t *testing.T) {
	t.Parallel()
	ro := pendingRollout()
	r := runConflicting(t, ro, 100, "approve", ro.Name, "--expires", "90m", "--reason", "window")

	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.out)
	assert.Equal(t, "error: approve rollout "+ro.Name+`: Operation cannot be fulfilled on runtimerollouts.operator.aicr.run "`+
		ro.Name+`": `+errModified.Error()+"\n", r.errOut)
	assert.Equal(t, 5, r.patches)
	assert.Equal(t, 5, r.gets)
}
