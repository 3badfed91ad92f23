package trust_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/ports"
)

// TestAttack_ForgedEvidenceWhileItsBindingIsGone: a validated rollout records its evidence under
// the operator's seal. With the approval policy's binding deleted, the approver points its
// evidence reference at other evidence, keeping the seal, and gives another rollout that rollout's
// evidence reference and seal. Once the binding is back, neither reference is reported as the
// operator's evidence: the seal is keyed, over the digest and bound to the rollout it was made on.
func TestAttack_ForgedEvidenceWhileItsBindingIsGone(t *testing.T) {
	baseline(t)
	const genuine, other = "sha256:" + "1111111111111111111111111111111111111111111111111111111111111111",
		"sha256:" + "2222222222222222222222222222222222222222222222222222222222222222"
	endedRollout(t, "validated", 1, aicrv1alpha1.PhaseSucceeded)
	endedRollout(t, "unvalidated", 2, aicrv1alpha1.PhaseFailed)
	setEvidence(t, "validated", genuine)
	validated := liveRollout(t, "validated")
	ev, err := shared.Evidence(operatorSeals(), validated)
	require.NoError(t, err, "the operator's own evidence reference verifies")
	require.Equal(t, ports.Digest(genuine), ev)

	liftApprovalBinding(t)
	seal := validated.Annotations[aicrv1alpha1.AnnotationEvidenceSeal]
	mallory := as(approverUser)
	swap := map[string]any{"metadata": map[string]any{"annotations": map[string]any{aicrv1alpha1.AnnotationEvidence: other}}}
	require.Eventually(t, func() bool { return patchRollout(mallory, "validated", swap) == nil },
		waitFor, tick, "without its binding the approval policy enforces nothing, once the API server has noticed")
	copied := map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		aicrv1alpha1.AnnotationEvidence: genuine, aicrv1alpha1.AnnotationEvidenceSeal: seal}}}
	require.NoError(t, patchRollout(mallory, "unvalidated", copied))
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-approval")

	for _, name := range []string{"validated", "unvalidated"} {
		ev, err := shared.Evidence(operatorSeals(), liveRollout(t, name))
		require.ErrorIs(t, err, ports.ErrBadSeal, "%s: the forged reference is not the operator's", name)
		assert.Empty(t, ev, name)
	}
}

// setEvidence records, as the operator does when a rollout is validated, the evidence digest on
// the ended rollout name with the operator's seal.
func setEvidence(t *testing.T, name, digest string) {
	t.Helper()
	ro := liveRollout(t, name)
	ro.Annotations[aicrv1alpha1.AnnotationEvidence] = digest
	shared.SealEvidence(operatorSeals(), ro)
	require.NoError(t, patchRollout(operator(), name, map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		aicrv1alpha1.AnnotationEvidence: digest, aicrv1alpha1.AnnotationEvidenceSeal: ro.Annotations[aicrv1alpha1.AnnotationEvidenceSeal]}}}))
}
