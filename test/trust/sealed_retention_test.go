package trust_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// formerRuntime is the runtime UID of the rollouts the retention attack plays on: a runtime
// the world's operator does not run, so its controllers leave them alone.
const formerRuntime = "0f0f0f0f-0000-4000-8000-00000000f0f0"

// TestAttack_ForgedSuccessDoesNotGetTheActiveRolloutRetired: a runtime's active rollout (its
// sealed success) is followed by ten failed rollouts and one more. With the approval policy's
// binding deleted, the approver relabels that last rollout Succeeded. Once the binding is back,
// a retention pass does not count the forged success: the sealed one stays the rollout the
// active plan is derived from and is kept, and the eleventh most recent terminal rollout goes.
func TestAttack_ForgedSuccessDoesNotGetTheActiveRolloutRetired(t *testing.T) {
	baseline(t)
	ctx := context.Background()
	names := make([]string, 12)
	for i := range names {
		names[i] = fmt.Sprintf("former-%02d", i+1)
		outcome := aicrv1alpha1.PhaseFailed
		if i == 0 {
			outcome = aicrv1alpha1.PhaseSucceeded
		}
		endedRollout(t, names[i], i+1, outcome)
	}
	liftApprovalBinding(t)
	forged := map[string]any{"metadata": map[string]any{"labels": map[string]any{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)}}}
	require.Eventually(t, func() bool { return patchRollout(as(approverUser), names[11], forged) == nil },
		waitFor, tick, "without its binding the approval policy enforces nothing, once the API server has noticed")
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval")

	// The pass deletes as the operator and lists the ConfigMaps of an empty namespace (as the
	// cluster admin, since the operator reads its own namespace only): it judges rollouts only.
	empty := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "retention-attack"}}
	require.NoError(t, client.IgnoreAlreadyExists(k8s.Create(ctx, empty)))
	r, err := retention.New(operator(), k8s, record.NewFakeRecorder(100), empty.Name, time.Hour,
		shared.Release{Version: aicrVersion, Image: aicrImage}, operatorSeals())
	require.NoError(t, err)
	_, err = r.Reconcile(ctx, ctrl.Request{})
	require.NoError(t, err)

	require.Eventually(t, func() bool { return gone(t, names[1]) }, waitFor, tick, "the eleventh most recent terminal rollout goes")
	assert.False(t, gone(t, names[0]), "the sealed success the active plan is derived from is kept")
}

// endedRollout creates, as the operator, a rollout of formerRuntime with sequence seq that
// ended with outcome under the operator's seal; it is deleted when the test ends.
func endedRollout(t *testing.T, name string, seq int, outcome aicrv1alpha1.Phase) {
	t.Helper()
	ctx := context.Background()
	op := operator()
	ro := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{aicrv1alpha1.AnnotationSequence: fmt.Sprint(seq)}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{RuntimeUID: formerRuntime, FromPlanDigest: "sha256:" + strings.Repeat("1", 64),
			ToPlanDigest: "sha256:" + strings.Repeat("2", 64), Deadline: metav1.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))},
	}
	require.NoError(t, op.Create(ctx, ro))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(operator().Delete(context.Background(), ro))) })
	ro.Labels = map[string]string{aicrv1alpha1.LabelOutcome: string(outcome)}
	ro.Annotations[aicrv1alpha1.AnnotationOutcomeMessage] = "ended"
	shared.SealOutcome(operatorSeals(), ro)
	require.NoError(t, patchRollout(op, name, map[string]any{"metadata": map[string]any{"labels": ro.Labels, "annotations": ro.Annotations}}))
}

// gone reports whether the rollout name no longer exists.
func gone(t *testing.T, name string) bool {
	t.Helper()
	err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, &aicrv1alpha1.RuntimeRollout{})
	if apierrors.IsNotFound(err) {
		return true
	}
	require.NoError(t, err)
	return false
}
