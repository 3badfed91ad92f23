package trust_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// TestAttack_ForgedOutcomeWhileItsBindingIsGone: an identity that may change policy bindings
// deletes the approval policy's binding (as the restore procedure does), and the approver, who
// may patch rollouts, labels the rollout that waits for it Succeeded, with a message and the
// seal copied from the initial install. Once the binding is back, the operator does not take the
// forged success's target as the active plan: the seal is keyed and bound to another rollout,
// and the engine objects do not show that plan live, so the runtime stalls OutcomeUnverified and
// nothing moves.
func TestAttack_ForgedOutcomeWhileItsBindingIsGone(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	installed := w.installedRollout(t)
	require.NotEmpty(t, installed.Annotations[aicrv1alpha1.AnnotationSeal], "the operator sealed the install's outcome")
	liftApprovalBinding(t)

	forged := map[string]any{"metadata": map[string]any{
		"labels": map[string]any{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)},
		"annotations": map[string]any{aicrv1alpha1.AnnotationOutcomeMessage: "rolled out",
			aicrv1alpha1.AnnotationSeal: installed.Annotations[aicrv1alpha1.AnnotationSeal]},
	}}
	require.Eventually(t, func() bool { return patchRollout(as(approverUser), w.awaiting, forged) == nil },
		waitFor, tick, "without its binding the approval policy enforces nothing, once the API server has noticed")
	t.Cleanup(func() { w.unforgeOutcome(t) })
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval")

	waitCondition(t, "Stalled", string(domain.StallOutcomeUnverified), "rollout "+w.awaiting+" is labelled Succeeded without the operator's seal")
	assert.Equal(t, w.active, liveRuntime(t).Status.ActivePlanDigest, "the active plan stays the sealed one")
}

// liftApprovalBinding deletes the approval policy's binding as the policy-binding admin and
// waits until the operator stalls on it; the binding is put back when the test ends.
func liftApprovalBinding(t *testing.T) {
	t.Helper()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-approval"}}
	require.NoError(t, client.IgnoreNotFound(as(policyUser).Delete(context.Background(), binding)))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval") })
	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "aicr-operator-approval is missing")
}

// unforgeOutcome removes the forged outcome from the waiting rollout, with the approval binding
// lifted again (the label is set once), and waits until the rollout waits for its approver again.
func (w *world) unforgeOutcome(t *testing.T) {
	t.Helper()
	liftApprovalBinding(t)
	clean := map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{aicrv1alpha1.LabelOutcome: nil},
		"annotations": map[string]any{aicrv1alpha1.AnnotationOutcomeMessage: nil, aicrv1alpha1.AnnotationSeal: nil},
	}}
	require.Eventually(t, func() bool { return patchRollout(k8s, w.awaiting, clean) == nil }, waitFor, tick)
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
	assert.Equal(t, w.active, liveRuntime(t).Status.ActivePlanDigest)
}

// patchRollout merge-patches the rollout name as c.
func patchRollout(c client.Client, name string, patch map[string]any) error {
	raw, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return c.Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", raw))
}

// TestUnsealedSuccessIsRedoneFromTheEngine: a success labelled without a seal, as an operator
// wrote it before the seal key existed (the seal removed here with the approval binding lifted),
// is judged again from the engine objects, which show its target plan live: the operator seals
// it again and the active plan stays.
func TestUnsealedSuccessIsRedoneFromTheEngine(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	installed := w.installedRollout(t)
	seal := installed.Annotations[aicrv1alpha1.AnnotationSeal]
	require.NotEmpty(t, seal)
	liftApprovalBinding(t)
	unsealed := map[string]any{"metadata": map[string]any{"annotations": map[string]any{aicrv1alpha1.AnnotationSeal: nil}}}
	require.Eventually(t, func() bool { return patchRollout(k8s, installed.Name, unsealed) == nil }, waitFor, tick)
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval")

	require.Eventually(t, func() bool {
		return liveRollout(t, installed.Name).Annotations[aicrv1alpha1.AnnotationSeal] == seal
	}, waitFor, tick, "the operator seals the success the engine objects confirm")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
	assert.Equal(t, w.active, liveRuntime(t).Status.ActivePlanDigest)
}
