package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// forgedRecipe is a recipe with a component nobody asked for.
const forgedRecipe = `apiVersion: aicr.run/v1
kind: RecipeResult
metadata: {version: v1.1.0}
componentRefs:
  - {name: gpu-operator}
  - {name: backdoor}
`

// TestAttack_PlantLabelledKeptResult: a ConfigMap editor of the operator namespace plants a
// kept recipe result carrying the operator's labels. PLAN-8 refuses.
func TestAttack_PlantLabelledKeptResult(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	cm := labelled(operatorNS, "aicr-recipe-0000000000000000", map[string]string{jobs.OutputKey: forgedRecipe})
	refused(t, as(cmEditorUser).Create(context.Background(), cm), "PLAN-8")
}

// TestAttack_StripLabelsOfKeptResult: the ConfigMap editor removes the operator's labels from a
// kept result, to make it look foreign or to edit it afterwards. PLAN-8 judges the old object too.
func TestAttack_StripLabelsOfKeptResult(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	kept := keptResult(t, aicrv1alpha1.RoleSnapshot)
	kept.Labels = nil
	refused(t, as(cmEditorUser).Update(context.Background(), kept), "PLAN-8")
}

// TestAttack_SwapKeptRecipe: the ConfigMap editor deletes the kept recipe result (a cache,
// deletable) and puts an unlabelled recipe with an extra component under its name, then the
// next resolution would reuse it. The resolver ignores what it cannot prove it kept, runs the
// recipe Job again and stalls ForeignObject rather than take over the name; the candidate plan
// stays, nothing is rolled out.
func TestAttack_SwapKeptRecipe(t *testing.T) {
	swapKept(t, aicrv1alpha1.RoleRecipe)
}

// TestAttack_SwapKeptSnapshot: the same with the kept snapshot.
func TestAttack_SwapKeptSnapshot(t *testing.T) {
	swapKept(t, aicrv1alpha1.RoleSnapshot)
}

func swapKept(t *testing.T, role string) {
	t.Helper()
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	kept := keptResult(t, role)
	mallory := as(cmEditorUser)
	require.NoError(t, mallory.Delete(ctx, kept), "a kept result is a cache anyone with ConfigMap rights may delete")
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: kept.Name, Namespace: operatorNS},
		Data: map[string]string{jobs.OutputKey: forgedRecipe}}
	require.NoError(t, mallory.Create(ctx, forged), "an unlabelled ConfigMap is not the operator's business at admission")
	t.Cleanup(func() { w.resolveBack(t, forged) })

	require.NoError(t, setOverride(ctx, "999.0.0"))
	waitCondition(t, "Resolved", "ForeignObject", kept.Name)
	assert.Equal(t, w.target, liveRuntime(t).Status.CandidatePlanDigest, "the candidate plan stays")
	assert.True(t, eventRecorded(t, domain.EventKeptResultIgnored.String()), "the forged result is ignored, not used")
	assert.Equal(t, aicrv1alpha1.PhaseAwaitingApproval, liveRollout(t, w.awaiting).Status.Phase)
}

// TestAttack_ForgeActiveRecipe: the ConfigMap editor replaces the recipe of the active plan,
// which upgrade-check compares against, with unlabelled content of its own. The plan records
// the recipe's digest: the resolver stalls PlanUnreadable instead of comparing against it.
func TestAttack_ForgeActiveRecipe(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	doc := planDocument(t, w.active)
	require.NotNil(t, doc.ConfigMapRef)
	original := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: operatorNS, Name: doc.ConfigMapRef.Name}, original))
	mallory := as(cmEditorUser)
	require.NoError(t, mallory.Delete(ctx, original))
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: original.Name, Namespace: operatorNS},
		Data: map[string]string{configdoc.RecipeKey: `{"componentRefs":[{"name":"backdoor"}]}`}}
	require.NoError(t, mallory.Create(ctx, forged))
	t.Cleanup(func() {
		require.NoError(t, client.IgnoreNotFound(mallory.Delete(ctx, forged)))
		restored := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: original.Name, Namespace: operatorNS,
			Labels: original.Labels, Annotations: original.Annotations}, Immutable: original.Immutable, Data: original.Data}
		require.NoError(t, as(operatorUser, "system:serviceaccounts").Create(ctx, restored), "the operator's recipe back")
		w.resolveBack(t, nil)
	})

	require.NoError(t, setOverride(ctx, "999.0.1"))
	waitCondition(t, "Resolved", "PlanUnreadable", "active plan for upgrade-check")
	assert.Equal(t, w.target, liveRuntime(t).Status.CandidatePlanDigest)
}

// TestAttack_PlantAssessment: the ConfigMap editor plants an upgrade-check report rating every
// component safe for a transition. PLAN-8 refuses the labelled report; an unlabelled one is
// never listed as an assessment.
func TestAttack_PlantAssessment(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	cm := labelled(operatorNS, "aicr-assessment-0000000000000000", map[string]string{configdoc.ReportKey: `{"components":[]}`})
	cm.Labels[aicrv1alpha1.LabelRole] = aicrv1alpha1.RoleAssessment
	cm.Annotations = map[string]string{aicrv1alpha1.AnnotationPlanDigest: w.target, aicrv1alpha1.AnnotationFromPlanDigest: w.active}
	refused(t, as(cmEditorUser).Create(context.Background(), cm), "PLAN-8")
}

// resolveBack removes a forged ConfigMap and sets the baseline override again, then waits until
// the runtime resolves to the baseline's target plan.
func (w *world) resolveBack(t *testing.T, forged *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	if forged != nil {
		require.NoError(t, client.IgnoreNotFound(as(cmEditorUser).Delete(ctx, forged)))
	}
	require.NoError(t, setOverride(ctx, overrideValue))
	waitCondition(t, "Resolved", domain.ReasonResolved, w.target)
}

// keptResult returns the operator's sealed kept result of role.
func keptResult(t *testing.T, role string) *corev1.ConfigMap {
	t.Helper()
	var list corev1.ConfigMapList
	require.NoError(t, k8s.List(context.Background(), &list, client.InNamespace(operatorNS),
		client.MatchingLabels{aicrv1alpha1.LabelRole: role}))
	for i := range list.Items {
		if list.Items[i].Annotations[aicrv1alpha1.AnnotationContentDigest] != "" {
			return &list.Items[i]
		}
	}
	t.Fatalf("no kept %s result", role)
	return nil
}

// planDocument reads the plan document of digest.
func planDocument(t *testing.T, digest string) *configdoc.Plan {
	t.Helper()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, cm))
	doc, err := configdoc.DecodePlan([]byte(cm.Data[configdoc.PlanKey]))
	require.NoError(t, err)
	return doc
}

// eventRecorded reports whether an Event with reason was recorded about the runtime.
func eventRecorded(t *testing.T, reason string) bool {
	t.Helper()
	var list corev1.EventList
	require.NoError(t, k8s.List(context.Background(), &list, client.InNamespace(metav1.NamespaceDefault)))
	for _, e := range list.Items {
		if e.Reason == reason && e.InvolvedObject.Name == aicrv1alpha1.ClusterRuntimeName {
			return true
		}
	}
	return false
}
