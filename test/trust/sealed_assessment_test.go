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
	"github.com/NVIDIA/aicr/adapters/kube/controllers/runtime"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// allSafe is an upgrade-check report rating the transition's upgrade safe.
const allSafe = `{"components":[{"component":"gpu-operator","change":"version","verdict":"safe"}]}`

// TestAttack_PlantAllSafeAssessmentWhileItsBindingIsGone: with the plans policy's binding
// deleted, the ConfigMap editor replaces the operator's upgrade-check report of the waiting
// transition with an all-safe one under the name its content makes, with the operator's labels,
// annotations and the seal of the report it replaced. Once the binding is back, the operator's
// assessment source does not return it: the seal is keyed and bound to the replaced report.
func TestAttack_PlantAllSafeAssessmentWhileItsBindingIsGone(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	genuine := assessmentOf(t, w.active, w.target)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-plans"}}
	require.NoError(t, as(policyUser).Delete(ctx, binding))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans") })
	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "aicr-operator-plans is missing")

	name, err := configdoc.AssessmentConfigMapName(w.active, w.target, configdoc.ContentDigest([]byte(allSafe)))
	require.NoError(t, err)
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS,
		Labels: genuine.Labels, Annotations: genuine.Annotations}, Immutable: genuine.Immutable,
		Data: map[string]string{configdoc.ReportKey: allSafe}}
	mallory := as(cmEditorUser)
	require.NoError(t, mallory.Delete(ctx, genuine))
	t.Cleanup(func() { putBackAssessment(t, genuine) })
	require.Eventually(t, func() bool { return mallory.Create(ctx, forged.DeepCopy()) == nil },
		waitFor, tick, "without its binding the plans policy enforces nothing, once the API server has noticed")
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, forged))) })
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans")

	rows, digest, err := runtime.NewAssessmentReader(k8s, operatorNS, operatorSeals())(ctx, "", w.active, w.target)
	require.NoError(t, err)
	assert.Empty(t, rows, "the planted all-safe report is never used")
	assert.Empty(t, digest)
}

// assessmentOf returns the operator's upgrade-check report of the transition from -> to.
func assessmentOf(t *testing.T, from, to string) *corev1.ConfigMap {
	t.Helper()
	var list corev1.ConfigMapList
	require.NoError(t, k8s.List(context.Background(), &list, client.InNamespace(operatorNS),
		client.MatchingLabels{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment}))
	for i := range list.Items {
		cm := &list.Items[i]
		if cm.Annotations[aicrv1alpha1.AnnotationFromPlanDigest] == from && cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] == to {
			require.NotEmpty(t, cm.Annotations[aicrv1alpha1.AnnotationSeal], "the operator sealed its report")
			return cm
		}
	}
	t.Fatalf("no assessment of %s -> %s", from, to)
	return nil
}

// putBackAssessment recreates the operator's report as the operator and seals it again: the
// seal is bound to the UID, which the new copy does not share.
func putBackAssessment(t *testing.T, genuine *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	back := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: genuine.Name, Namespace: operatorNS,
		Labels: genuine.Labels, Annotations: genuine.Annotations}, Immutable: genuine.Immutable, Data: genuine.Data}
	op := operator()
	require.NoError(t, op.Create(ctx, back))
	planstore.SealAssessment(operatorSeals(), back)
	require.NoError(t, op.Update(ctx, back))
}
