package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// forgedImage is the AICR image the forged plan claims rendered it.
const forgedImage = "registry.example/attacker/aicr:v9.9.9"

// TestAttack_ForgedPlanRecordWhileItsBindingIsGone: with the plans policy's binding deleted, the
// ConfigMap editor replaces the plan ConfigMap of the waiting rollout's target with one that
// keeps its releases and values (so every digest the plugin and the unkeyed checks recompute
// still matches) but claims another AICR image rendered it, with the operator's labels,
// annotations and the seal of the plan it replaced. Once the binding is back, the operator's
// plan reader refuses it (PlanUnreadable: not sealed by the operator's key).
func TestAttack_ForgedPlanRecordWhileItsBindingIsGone(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	genuine := planConfigMap(t, w.target)
	require.NotEmpty(t, genuine.Annotations[aicrv1alpha1.AnnotationSeal], "the operator sealed its plan")
	uid := string(liveRuntime(t).UID)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-plans"}}
	require.NoError(t, as(policyUser).Delete(ctx, binding))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans") })
	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "aicr-operator-plans is missing")

	doc, err := configdoc.DecodePlan([]byte(genuine.Data[configdoc.PlanKey]))
	require.NoError(t, err)
	doc.AICRImage = forgedImage
	raw, err := configdoc.EncodePlan(doc)
	require.NoError(t, err)
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: genuine.Name, Namespace: operatorNS,
		Labels: genuine.Labels, Annotations: genuine.Annotations}, Immutable: genuine.Immutable,
		Data: map[string]string{configdoc.PlanKey: string(raw)}}
	mallory := as(cmEditorUser)
	require.NoError(t, mallory.Delete(ctx, genuine))
	t.Cleanup(func() { putBackPlan(t, genuine) })
	require.Eventually(t, func() bool { return mallory.Create(ctx, forged.DeepCopy()) == nil },
		waitFor, tick, "without its binding the plans policy enforces nothing, once the API server has noticed")
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans")

	read, stall, err := planstore.NewReader(k8s, operatorNS, operatorSeals()).Document(ctx, w.target, uid)
	require.NoError(t, err)
	assert.True(t, read == nil, "the forged plan is never read")
	require.NotNil(t, stall)
	assert.Equal(t, domain.StallPlanUnreadable, stall.Reason())
	assert.Contains(t, stall.Message(), "not sealed by the operator's key")
}

// planConfigMap returns the plan ConfigMap of digest.
func planConfigMap(t *testing.T, digest string) *corev1.ConfigMap {
	t.Helper()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, cm))
	return cm
}

// putBackPlan puts the operator's plan back as the operator, sealed again (the seal is bound to
// the UID, which the new copy does not share), and waits until the waiting rollout waits for its
// approver again.
func putBackPlan(t *testing.T, genuine *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	op := operator()
	require.NoError(t, client.IgnoreNotFound(op.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: genuine.Name, Namespace: operatorNS}})))
	back := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: genuine.Name, Namespace: operatorNS,
		Labels: genuine.Labels, Annotations: genuine.Annotations}, Immutable: genuine.Immutable, Data: genuine.Data}
	require.NoError(t, op.Create(ctx, back))
	planstore.SealPlan(operatorSeals(), back)
	require.NoError(t, op.Update(ctx, back))
	waitRolloutStalled(t, sharedWorld.awaiting, string(domain.StallAwaitingApproval))
}
