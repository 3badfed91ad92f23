package cli_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// runRacing runs kubectl aicr as user at the suite's clock, and runs write once, just before
// the command's first patch of a rollout or of the ClusterRuntime reaches the API server: the
// object changes between the command's read and its write. It returns how many patches the command sent.
func runRacing(write func(), user string, args ...string) (result, int) {
	var (
		once    sync.Once
		mu      sync.Mutex
		patches int
	)
	wrap := func(cfg *rest.Config) *rest.Config {
		cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/apis/"+aicrv1alpha1.GroupVersion.Group+"/") {
					once.Do(write)
					mu.Lock()
					patches++
					mu.Unlock()
				}
				return next.RoundTrip(req)
			})
		})
		return cfg
	}
	r := runWith(func(o *cli.Options) {
		o.Now = func() time.Time { return now }
		o.ConfigFlags.WrapConfigFn = wrap
	}, append([]string{"--kubeconfig", kubeconfig, "--as", user}, args...)...)
	mu.Lock()
	defer mu.Unlock()
	return r, patches
}

// writeStatusMessage has the operator write the rollout's status, as it does while a rollout
// waits, which changes the rollout's resourceVersion.
func writeStatusMessage(t *testing.T, name, message string) func() {
	return func() {
		ro := getRollout(t, name)
		patch := client.MergeFrom(ro.DeepCopy())
		ro.Status.Message = message
		require.NoError(t, clientFor(operatorConfig()).Status().Patch(context.Background(), ro, patch))
	}
}

// TestApprove_DecidesAgainWhenTheRolloutChanged: a status write between the command's read
// and its patch makes the conditional patch conflict; the command reads the rollout again,
// decides again and approves, instead of failing the approver (CLI-3).
func TestApprove_DecidesAgainWhenTheRolloutChanged(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r, patches := runRacing(writeStatusMessage(t, name, "waiting for approval"), approverUser,
		"approve", name, "--expires", "2h", "--reason", "Maintenance window")

	requireOK(t, r)
	assert.Equal(t, 2, patches, "the first patch conflicts, the second lands")
	ro := getRollout(t, name)
	assert.Equal(t, approverUser, ro.Spec.Approval.ApprovedBy)
	assert.Equal(t, "waiting for approval", ro.Status.Message, "the status write is kept")
}

// TestApprove_RefusesWhenSomeoneElseApprovedFirst: when another approver decides between the
// command's read and its patch, the command decides again on what the rollout now says and
// refuses, leaving the other approval as it is (CLI-3, RO-4).
func TestApprove_RefusesWhenSomeoneElseApprovedFirst(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)
	approveAsBob := func() {
		ro := getRollout(t, name)
		patch := client.MergeFrom(ro.DeepCopy())
		ro.Spec.Approval = &aicrv1alpha1.Approval{ApprovedBy: groupMember, ExpiresAt: ts(now.Add(time.Hour)), Reason: "first"}
		require.NoError(t, clientFor(testEnv.Impersonate(groupMember, approverGroup)).Patch(context.Background(), ro, patch))
	}

	r, patches := runRacing(approveAsBob, approverUser, "approve", name, "--expires", "2h", "--reason", "Maintenance window")

	requireRefused(t, r, "is already approved by approver-bob until 2029-06-01T13:00:00Z")
	assert.Equal(t, 1, patches, "the second decision refuses without patching")
	assert.Equal(t, groupMember, getRollout(t, name).Spec.Approval.ApprovedBy)
}

// TestRevokeAndAcknowledge_DecideAgainWhenTheRolloutChanged: revoke and acknowledge, like
// approve, survive a status write between their read and their patch (CLI-4, CLI-5).
func TestRevokeAndAcknowledge_DecideAgainWhenTheRolloutChanged(t *testing.T) {
	needEnv(t)
	t.Parallel()
	ack := fixture{ro: newRollout(), approval: approved(), status: awaitingAcknowledgement()}.create(t)
	r, patches := runRacing(writeStatusMessage(t, ack, "do the recorded steps"), approverUser,
		"acknowledge", ack)
	requireOK(t, r)
	assert.Equal(t, 2, patches)
	require.Len(t, getRollout(t, ack).Spec.Approval.Acknowledgements, 1)

	revoke := fixture{ro: newRollout(), approval: approved()}.create(t)
	r, patches = runRacing(writeStatusMessage(t, revoke, "rolling out"), approverUser,
		"revoke", revoke, "--reason", "Wrong window")
	requireOK(t, r)
	assert.Equal(t, 2, patches)
	assert.Equal(t, approverUser, getRollout(t, revoke).Spec.Approval.RevokedBy)
}
