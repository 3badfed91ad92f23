package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// TestAttack_StatusWriterSkipsApproval: an identity that may write rollout status sets the
// rollout that waits for an approver to Progressing. Only the operator writes status.
func TestAttack_StatusWriterSkipsApproval(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	refused(t, patchRolloutStatus(as(statusUser), w.awaiting, `{"status":{"phase":"Progressing"}}`),
		"PLAT-5: the status of runtimerollouts is written only by the operator")
}

// TestAttack_StatusWriterMarksSucceeded: the same, marking it Succeeded so its target would
// become the active plan.
func TestAttack_StatusWriterMarksSucceeded(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	refused(t, patchRolloutStatus(as(statusUser), w.awaiting, `{"status":{"phase":"Succeeded"}}`), "PLAT-5")
}

// TestAttack_StatusWriterMovesTheCandidate: the runtime's candidate plan, set by the resolver,
// is the target rollouts go to.
func TestAttack_StatusWriterMovesTheCandidate(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}}
	err := as(statusUser).Status().Patch(context.Background(), cr,
		client.RawPatch("application/merge-patch+json", []byte(`{"status":{"candidatePlanDigest":"`+w.active+`"}}`)))
	refused(t, err, "PLAT-5: the status of clusterruntimes is written only by the operator")
}

// TestAttack_StatusForgedWhileItsBindingIsGone: an identity that may change policy bindings
// deletes the status policy's binding, and the status writer then marks the waiting rollout
// Succeeded. The operator sees the binding gone and stalls AdmissionPolicyMissing: it moves
// nothing and sets no outcome. Once helm upgrade restores the binding it judges the rollout
// from spec: still waiting for an approver, with no outcome label.
func TestAttack_StatusForgedWhileItsBindingIsGone(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-status"}}
	require.NoError(t, as(policyUser).Delete(ctx, binding))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-status") })

	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "ValidatingAdmissionPolicyBinding aicr-operator-status is missing")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAdmissionPolicyMissing))
	require.Eventually(t, func() bool {
		return patchRolloutStatus(as(statusUser), w.awaiting, `{"status":{"phase":"Succeeded","currentStep":2}}`) == nil
	}, waitFor, tick, "without its binding the policy enforces nothing, once the API server has noticed")
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-status")

	require.Eventually(t, func() bool {
		return liveRollout(t, w.awaiting).Status.Phase == aicrv1alpha1.PhaseAwaitingApproval
	}, waitFor, tick, "the forged phase is judged afresh")
	ro := liveRollout(t, w.awaiting)
	assert.Empty(t, ro.Labels[aicrv1alpha1.LabelOutcome], "no outcome from a status the operator did not write")
	assert.Equal(t, w.active, liveRuntime(t).Status.ActivePlanDigest, "the active plan stays")
}

// TestAttack_PlansBindingNarrowed: the plans policy's binding is narrowed to match nothing,
// which would let anyone write operator-labelled ConfigMaps. The operator stalls until it is
// whole again.
func TestAttack_PlansBindingNarrowed(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: "aicr-operator-plans"}, binding))
	binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"example.com/none": "none"}}}
	require.NoError(t, as(policyUser).Update(ctx, binding))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans") })

	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "aicr-operator-plans narrows the policy")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAdmissionPolicyMissing))
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
}

// TestAttack_PolicyWeakened: the plans policy keeps its name, failure policy and binding, but
// its rule is rewritten to admit anyone. Presence and form are unchanged; its content is not
// what the chart rendered, so the operator stalls until it is whole again.
func TestAttack_PolicyWeakened(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: "aicr-operator-plans"}, policy))
	policy.Spec.Validations[0].Expression = "true"
	require.NoError(t, as(policyUser).Update(ctx, policy))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicy", "aicr-operator-plans") })

	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing),
		"ValidatingAdmissionPolicy aicr-operator-plans or its binding is not what the chart rendered")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAdmissionPolicyMissing))
	restoreAdmission(t, "ValidatingAdmissionPolicy", "aicr-operator-plans")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
}

// TestAttack_SafeVerdictHidesAnOverride: the runtime editor changes gpu-operator's values with
// an override; AICR's upgrade-check rates the component safe, since it compares versions, not
// values. The rollout still needs an approver, and its step says why.
func TestAttack_SafeVerdictHidesAnOverride(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ro := liveRollout(t, w.awaiting)
	assert.True(t, ro.Spec.ApprovalRequired)
	var upgrades []string
	for _, s := range ro.Spec.Steps {
		if s.Operation == aicrv1alpha1.OperationUpgrade {
			upgrades = append(upgrades, s.Release)
			assert.Equal(t, "safe", string(s.Assessment), "AICR rated it safe")
		}
	}
	assert.Equal(t, []string{"gpu-operator"}, upgrades)
	assert.Equal(t, aicrv1alpha1.PhaseAwaitingApproval, ro.Status.Phase)
}

// patchRolloutStatus merge-patches the rollout's status as c.
func patchRolloutStatus(c client.Client, name, patch string) error {
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return c.Status().Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch)))
}

// restoreAdmission puts the chart's policy or binding (kind) name back whole: created when it is
// gone, its spec replaced by the rendered one otherwise (fields an attacker added are dropped
// too).
func restoreAdmission(t *testing.T, kind, name string) {
	t.Helper()
	ctx := context.Background()
	for _, o := range rendered {
		if o.GetKind() != kind || o.GetName() != name {
			continue
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		err := k8s.Get(ctx, client.ObjectKey{Name: name}, live)
		if apierrors.IsNotFound(err) {
			fresh := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "metadata": map[string]any{"name": name},
				"spec": o.DeepCopy().Object["spec"]}}
			require.NoError(t, k8s.Create(ctx, fresh))
			return
		}
		require.NoError(t, err)
		live.Object["spec"] = o.DeepCopy().Object["spec"]
		require.NoError(t, k8s.Update(ctx, live))
		return
	}
	t.Fatalf("the chart renders no %s %s", kind, name)
}
