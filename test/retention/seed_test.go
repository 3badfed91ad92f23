package retention_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	runtimeUIDB = "7d1c0e2f-5a6b-4c3d-9e8f-0a1b2c3d4e5f"
	// root is the ConfigMap every namespace gets; retention never sees it.
	root = "kube-root-ca.crt"
)

// digest is a plan digest whose ConfigMap name sorts with i, so plans created in the same
// second are ordered by name as they were seeded.
func digest(i int) string {
	return fmt.Sprintf("sha256:%016x%s", i, strings.Repeat("0", 48))
}

func planName(i int) string {
	name, err := configdoc.PlanConfigMapName(digest(i))
	if err != nil {
		panic(err)
	}
	return name
}

func managed(role string) map[string]string {
	return map[string]string{aicrv1alpha1.LabelRole: role, aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}
}

// storeConfigMap creates an immutable ConfigMap unless it exists (shared recipes and values).
func storeConfigMap(t *testing.T, namespace, name string, labels, annotations, data map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels, Annotations: annotations},
		Immutable:  ptr.To(true), Data: data,
	}
	require.NoError(t, client.IgnoreAlreadyExists(k8s.Create(context.Background(), cm)))
}

// storeDependent stores a recipe, values or assessment ConfigMap as the resolver does, annotated
// with the plan that wrote it first.
func storeDependent(t *testing.T, name, role string, plan int) {
	t.Helper()
	storeConfigMap(t, operatorNamespace, name, managed(role),
		map[string]string{aicrv1alpha1.AnnotationPlanDigest: digest(plan)}, map[string]string{"doc": name})
}

// storeResult stores a kept AICR result as the Job runner does: no plan-digest annotation.
func storeResult(t *testing.T, name, role string) {
	t.Helper()
	storeConfigMap(t, operatorNamespace, name, managed(role), nil, map[string]string{"output": name})
}

// storePlan stores plan i of uid through the plan store with its recipe, validation recipe
// ("" for none) and values, each named by the test: recipes and values are content-addressed,
// so the name is their content and recipeCM and valuesCM the names the store gives them.
func storePlan(t *testing.T, i int, uid, recipe, validation, values string) {
	t.Helper()
	plan := &domain.Plan{SchemaVersion: domain.PlanSchemaVersion, Digest: digest(i), RuntimeUID: uid, Source: domain.SourceResolved,
		Releases: valuesReleases(values)}
	p := planstoretest.Plan{Plan: plan, Recipe: recipeDoc(recipe)}
	if validation != "" {
		p.ValidationRecipe = recipeDoc(validation)
	}
	planstoretest.Store{Client: k8s, Namespace: operatorNamespace}.Write(t, p)
}

// recipeDoc is the recipe document a test names name.
func recipeDoc(name string) []byte { return []byte(fmt.Sprintf(`{"recipe":%q}`, name)) }

// recipeCM is the name of the recipe ConfigMap the plan store writes for the recipe named name.
func recipeCM(name string) string {
	d, err := planstore.RecipeDigest(recipeDoc(name))
	if err != nil {
		panic(err)
	}
	return planstore.RecipePrefix + strings.TrimPrefix(d, "sha256:")[:16]
}

// valuesReleases is the one release of a plan whose values a test names name.
func valuesReleases(name string) []domain.Release {
	r := domain.Release{ID: "gpu-operator", Namespace: "gpu-operator", Values: map[string]any{"name": name}}
	var err error
	if r.ValuesDigest, err = domain.Digest(r.Values); err != nil {
		panic(err)
	}
	return []domain.Release{r}
}

// valuesCM is the name of the values ConfigMap the plan store writes for the values named name.
func valuesCM(name string) string {
	v, _, err := configdoc.EncodeValues(&domain.Plan{Releases: valuesReleases(name)})
	if err != nil {
		panic(err)
	}
	return v.Name
}

// createRuntime creates the ClusterRuntime and sets its status; it returns the runtime UID.
func createRuntime(t *testing.T, mutate func(*aicrv1alpha1.ClusterRuntime), status aicrv1alpha1.ClusterRuntimeStatus) string {
	t.Helper()
	ctx := context.Background()
	cr := &aicrv1alpha1.ClusterRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: aicrv1alpha1.ClusterRuntimeSpec{
			Intent: "training", Platform: "kubeflow",
			Placement: aicrv1alpha1.Placement{
				System:      aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "system"}},
				Accelerated: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu"}},
			},
		},
	}
	if mutate != nil {
		mutate(cr)
	}
	require.NoError(t, k8s.Create(ctx, cr))
	setStatus(t, status)
	return string(cr.UID)
}

// setStatus replaces the plan digests of the runtime's status.
func setStatus(t *testing.T, status aicrv1alpha1.ClusterRuntimeStatus) {
	t.Helper()
	ctx := context.Background()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	cr.Status = status
	require.NoError(t, k8s.Status().Update(ctx, cr))
}

// createRollout creates a rollout of uid with outcome ("" for none, otherwise sealed with the
// test key) from plan i to plan i+1.
func createRollout(t *testing.T, name, uid, outcome string, mutate func(*aicrv1alpha1.RuntimeRollout)) {
	t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{aicrv1alpha1.LabelRuntimeUID: uid}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{
			RuntimeUID: uid, FromPlanDigest: digest(9000), ToPlanDigest: digest(9001),
			Deadline: metav1.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)),
		},
	}
	if outcome != "" {
		ro.Labels[aicrv1alpha1.LabelOutcome] = outcome
	}
	if mutate != nil {
		mutate(ro)
	}
	require.NoError(t, k8s.Create(context.Background(), ro))
	if outcome != "" { // sealed as the operator seals an outcome, on the rollout's UID
		shared.SealOutcome(sealtest.New(), ro)
		require.NoError(t, k8s.Update(context.Background(), ro))
	}
}

// clean removes what a test created: the runtime, every rollout and every ConfigMap of both
// namespaces.
func clean(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}})))
	require.NoError(t, k8s.DeleteAllOf(ctx, &aicrv1alpha1.RuntimeRollout{}))
	for _, ns := range []string{operatorNamespace, otherNamespace} {
		for _, name := range configMaps(t, ns) {
			require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})))
		}
	}
	require.Eventually(t, func() bool {
		var list aicrv1alpha1.RuntimeRolloutList
		err := k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &aicrv1alpha1.ClusterRuntime{})
		return k8s.List(ctx, &list) == nil && len(list.Items) == 0 && err != nil
	}, 30*time.Second, 20*time.Millisecond)
}

// configMaps returns the sorted names of the ConfigMaps of namespace besides kube-root-ca.crt.
func configMaps(t *testing.T, namespace string) []string {
	t.Helper()
	var list corev1.ConfigMapList
	require.NoError(t, k8s.List(context.Background(), &list, client.InNamespace(namespace)))
	var out []string
	for _, cm := range list.Items {
		if cm.Name != root {
			out = append(out, cm.Name)
		}
	}
	sort.Strings(out)
	return out
}

// rollouts returns the sorted names of the rollouts.
func rollouts(t *testing.T) []string {
	t.Helper()
	var list aicrv1alpha1.RuntimeRolloutList
	require.NoError(t, k8s.List(context.Background(), &list))
	out := make([]string, 0, len(list.Items))
	for _, ro := range list.Items {
		out = append(out, ro.Name)
	}
	sort.Strings(out)
	return out
}

// newReconciler returns a retention reconciler deleting through c and listing uncached.
func newReconciler(t *testing.T, c client.Client) (*retention.Reconciler, *record.FakeRecorder) {
	t.Helper()
	rec := record.NewFakeRecorder(100)
	r, err := retention.New(c, k8s, rec, operatorNamespace, time.Hour, shared.Release{}, sealtest.New())
	require.NoError(t, err)
	return r, rec
}

// pass runs one retention pass.
func pass(t *testing.T, r *retention.Reconciler) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}})
	require.NoError(t, err)
	return res
}
