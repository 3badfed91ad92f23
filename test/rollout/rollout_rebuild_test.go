package rollout_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// losePlan deletes the values ConfigMap of p and then its plan ConfigMap and returns the plan
// ConfigMap's key. The values go first: the runtime rebuilds the plan as soon as it sees the
// plan ConfigMap gone, keeping a values ConfigMap that still exists, which a later delete
// would then take from the rebuilt plan.
func (h *harness) losePlan(p *domain.Plan) client.ObjectKey {
	h.t.Helper()
	name, err := configdoc.PlanConfigMapName(p.Digest)
	require.NoError(h.t, err)
	values, _, err := configdoc.EncodeValues(p)
	require.NoError(h.t, err)
	for _, n := range []string{values.Name, name} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: operatorNamespace}}
		require.NoError(h.t, k8s.Delete(context.Background(), cm))
	}
	return client.ObjectKey{Namespace: operatorNamespace, Name: name}
}

// installedOnArgo starts the operator on the Argo CD engine and installs the upgrade's
// from-plan until the runtime is Ready; it returns the harness, the runtime UID and the plan.
func installedOnArgo(t *testing.T) (*harness, string, *domain.Plan) {
	t.Helper()
	h := newHarness(t, true)
	h.withArgo()
	h.start()
	uid, plan := h.installed(nil)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	return h, uid, plan
}

// On the Argo CD engine a lost active plan (plan and values ConfigMaps deleted) is rebuilt
// from the live Applications with its digest, source rebuilt and no recipe, and the runtime
// is Ready again (PLAN-7, ENG-2).
func TestLostActivePlanRebuiltFromApplications(t *testing.T) {
	h, uid, plan := installedOnArgo(t)
	key := h.losePlan(plan)

	var doc *configdoc.Plan
	require.Eventually(t, func() bool {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), key, cm); err != nil {
			return false
		}
		var err error
		doc, err = configdoc.DecodePlan([]byte(cm.Data[configdoc.PlanKey]))
		require.NoError(t, err)
		assert.Equal(t, plan.Digest, cm.Annotations[aicrv1alpha1.AnnotationPlanDigest])
		assert.Equal(t, uid, cm.Labels[aicrv1alpha1.LabelRuntimeUID])
		return true
	}, waitFor, tick, "the lost plan ConfigMap is rebuilt")
	assert.Equal(t, plan.Digest, doc.Digest)
	assert.Equal(t, domain.SourceRebuilt, doc.Source)
	assert.False(t, doc.HasRecipe)
	assert.Nil(t, doc.ConfigMapRef)
	assert.Empty(t, doc.BundleRef)
	require.Len(t, doc.Releases, len(plan.Releases))
	for i, r := range plan.Releases {
		assert.Equal(t, r.ID, doc.Releases[i].ID, "plan order")
		assert.Equal(t, r.Chart, doc.Releases[i].Chart)
		assert.Equal(t, r.ValuesDigest, doc.Releases[i].ValuesDigest)
	}
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	if c := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled); c != nil {
		assert.Equal(t, metav1.ConditionFalse, c.Status, "not stalled: %+v", c)
	}
	assert.Len(t, h.rollouts(), 1, "no rollout for a rebuilt plan of the active digest")
	// The Event is recorded after the plan is written, and sent asynchronously.
	require.Eventually(t, func() bool {
		var events corev1.EventList
		if err := k8s.List(context.Background(), &events); err != nil {
			return false
		}
		for _, e := range events.Items {
			if e.Reason == "PlanRebuilt" && string(e.InvolvedObject.UID) == uid {
				return true
			}
		}
		return false
	}, waitFor, tick, "an Event on this runtime records the rebuild")
}

// A lost active plan whose live Application carries a changed value is not rebuilt: the
// runtime stays Stalled PlanUnreadable and no plan ConfigMap is written (PLAN-6, PLAN-7).
func TestLostActivePlanNotRebuiltFromTamperedApplication(t *testing.T) {
	h, _, plan := installedOnArgo(t)

	var apps argov1.ApplicationList
	require.NoError(t, k8s.List(context.Background(), &apps, client.InNamespace(argocd.DefaultNamespace)))
	require.NotEmpty(t, apps.Items)
	app := &apps.Items[0]
	patch := client.MergeFrom(app.DeepCopy())
	if app.Spec.Source.Helm.ValuesObject != nil {
		app.Spec.Source.Helm.ValuesObject = &runtime.RawExtension{Raw: []byte(`{"tampered":true}`)}
	} else {
		app.Spec.Source.Helm.Values = "tampered: true\n"
	}
	require.NoError(t, k8s.Patch(context.Background(), app, patch))
	// The rebuild reads the Applications through the operator's cache: it must hold the
	// tampered one before the plan is lost, or the plan is rebuilt from the value it replaced.
	tampered := app.Spec.Source.Helm.DeepCopy()
	cached := &argov1.Application{}
	h.waitCached(client.ObjectKeyFromObject(app), cached, func() bool {
		return cached.Spec.Source != nil && equality.Semantic.DeepEqual(tampered, cached.Spec.Source.Helm)
	}, "the operator never saw the tampered Application")
	key := h.losePlan(plan)

	require.Eventually(t, func() bool {
		c := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == string(domain.StallPlanUnreadable) &&
			containsAll(c.Message, plan.Digest, "cannot be rebuilt", "the operator never guesses")
	}, waitFor, tick, "a tampered Application is never rebuilt into a plan")
	err := k8s.Get(context.Background(), key, &corev1.ConfigMap{})
	assert.True(t, apierrors.IsNotFound(err), "no plan ConfigMap is written: %v", err)
}

// containsAll reports whether s contains every part.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
