package cli_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// The suite's fixed clock and objects.
var (
	now      = time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC)
	deadline = time.Date(2029, 6, 2, 12, 0, 0, 0, time.UTC)
)

const (
	runtimeUID = "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f"
	transition = "3f9a1c0d2b7e4a51"
)

var (
	digestA   = digestOf("plan A")
	digestB   = digestOf("plan B")
	inventory = digestOf("inventory")
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// result is what one kubectl aicr invocation printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// runAt runs kubectl aicr in-process with the suite's kubeconfig and the clock at at.
func runAt(at time.Time, timeout time.Duration, args ...string) result {
	return runWith(func(o *cli.Options) {
		o.Now = func() time.Time { return at }
		if timeout > 0 {
			o.Timeout = timeout
		}
	}, args...)
}

// runWith runs kubectl aicr in-process, wired as cmd/kubectl-aicr wires it, with the options
// configure sets.
func runWith(configure func(o *cli.Options), args ...string) result {
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Bundles = aicr.Reader{}
	o.Engine = argoCDReader
	configure(o)
	code := cli.Run(context.Background(), o, args)
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// argoCDReader is the Argo CD engine describe and reproduce read Applications through, as
// cmd/kubectl-aicr builds it.
func argoCDReader(cfg *rest.Config, engine cli.EngineConfig) (cli.EngineReader, error) {
	return argocd.NewStatusReader(cfg, argocd.Config{Namespace: engine.Namespace, Project: engine.Project, Registry: engine.Registry})
}

// run runs kubectl aicr as user with the suite's clock.
func run(user string, args ...string) result {
	return runAt(now, 0, append([]string{"--kubeconfig", kubeconfig, "--as", user}, args...)...)
}

// requireOK asserts a successful invocation with nothing on stderr.
func requireOK(t *testing.T, r result) {
	t.Helper()
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	require.Empty(t, r.stderr)
}

// requireRefused asserts a failed invocation that printed only an error containing want.
func requireRefused(t *testing.T, r result, want string) {
	t.Helper()
	require.Equal(t, 1, r.code, "stdout: %s", r.stdout)
	require.Empty(t, r.stdout)
	require.Contains(t, r.stderr, "error: ")
	require.Contains(t, r.stderr, want)
}

func operatorConfig() *rest.Config {
	return testEnv.Impersonate(operatorUser, operatorGroups...)
}

// rolloutObject is a RuntimeRollout as the operator creates it: an upgrade of two releases
// that needs approval.
func rolloutObject(name string) *aicrv1alpha1.RuntimeRollout {
	return &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			aicrv1alpha1.LabelTransition: transition, aicrv1alpha1.LabelRuntimeUID: runtimeUID,
		}, Annotations: map[string]string{aicrv1alpha1.AnnotationStartingInventorySize: "2"}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{
			RuntimeUID: runtimeUID, FromPlanDigest: digestA, ToPlanDigest: digestB,
			StartingInventoryDigest: inventory, Deadline: metav1.NewTime(deadline), ApprovalRequired: true,
			Steps: []aicrv1alpha1.Step{
				{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade, Assessment: "manual", ChangesCRDs: true},
				{Release: "nvsentinel", Operation: aicrv1alpha1.OperationUpgrade, Assessment: "manual"},
				{Release: "kai-scheduler", Operation: aicrv1alpha1.OperationInstall, Assessment: "none"},
			},
		},
	}
}

// fixture builds one rollout the way the operator and approvers would have left it.
type fixture struct {
	ro       *aicrv1alpha1.RuntimeRollout
	status   *aicrv1alpha1.RuntimeRolloutStatus
	outcome  string
	approval *aicrv1alpha1.Approval
	// approvalAs writes the approval as this user (default approver-alice).
	approvalAs string
}

// create creates the rollout as the operator, its status and outcome as the operator, and
// its approval as the approver, and returns its name.
func (f fixture) create(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	op := clientFor(operatorConfig())
	ro := f.ro.DeepCopy()
	require.NoError(t, op.Create(ctx, ro))
	if f.approval != nil {
		as := f.approvalAs
		if as == "" {
			as = approverUser
		}
		approver := clientFor(testEnv.Impersonate(as))
		// Approve first: acknowledgements and revocations need an existing approval.
		a := f.approval.DeepCopy()
		a.Acknowledgements, a.RevokedBy, a.RevokedAt, a.RevokeReason = nil, "", nil, ""
		patch := client.MergeFrom(ro.DeepCopy())
		ro.Spec.Approval = a
		require.NoError(t, approver.Patch(ctx, ro, patch))
		if f.approval.RevokedBy != "" || len(f.approval.Acknowledgements) > 0 {
			patch = client.MergeFrom(ro.DeepCopy())
			ro.Spec.Approval = f.approval.DeepCopy()
			require.NoError(t, approver.Patch(ctx, ro, patch))
		}
	}
	if f.status != nil {
		patch := client.MergeFrom(ro.DeepCopy())
		ro.Status = *f.status
		require.NoError(t, op.Status().Patch(ctx, ro, patch))
	}
	if f.outcome != "" {
		patch := client.MergeFrom(ro.DeepCopy())
		ro.Labels[aicrv1alpha1.LabelOutcome] = f.outcome
		require.NoError(t, op.Patch(ctx, ro, patch))
	}
	return ro.Name
}

// getRollout reads a rollout as the administrator.
func getRollout(t *testing.T, name string) *aicrv1alpha1.RuntimeRollout {
	t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{}
	require.NoError(t, clientFor(testEnv.Config).Get(context.Background(), client.ObjectKey{Name: name}, ro))
	return ro
}

// deleteRollout deletes the rollout name as the operator, the only identity the approval policy
// lets delete one, and waits until the API server no longer has it; a rollout already gone is
// success.
func deleteRollout(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	admin := clientFor(testEnv.Config)
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	require.NoError(t, client.IgnoreNotFound(clientFor(operatorConfig()).Delete(ctx, ro)), "delete rollout %s", name)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &aicrv1alpha1.RuntimeRollout{}))
	}, 30*time.Second, 100*time.Millisecond, "rollout %s is deleted", name)
}

// approved is an approval by approver-alice until the deadline.
func approved() *aicrv1alpha1.Approval {
	at := metav1.NewTime(deadline)
	return &aicrv1alpha1.Approval{ApprovedBy: approverUser, ExpiresAt: &at, Reason: "Maintenance window"}
}

func ts(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t)
	return &mt
}
