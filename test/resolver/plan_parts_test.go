package resolver_test

import (
	"context"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// recorded is a resolved runtime's candidate plan with the ConfigMaps it references.
type recorded struct {
	cr      *aicrv1alpha1.ClusterRuntime
	digest  string
	doc     *configdoc.Plan
	values  *corev1.ConfigMap
	recipes []*corev1.ConfigMap
}

// resolveRecorded creates the runtime, waits for its candidate plan and reads what it references.
func resolveRecorded(t *testing.T) recorded {
	t.Helper()
	cr := createRuntime(t, runtimeSpec())
	_, live := resolved(t, domain.ReasonResolved)
	assertJobsGone(t)
	rec := recorded{cr: cr, digest: live.Status.CandidatePlanDigest}
	doc, err := configdoc.DecodePlan([]byte(planConfigMap(t, rec.digest).Data[configdoc.PlanKey]))
	require.NoError(t, err)
	rec.doc = doc
	require.NotEmpty(t, doc.ValuesRefs)
	rec.values = liveConfigMap(t, doc.ValuesRefs[0].Name)
	require.NotNil(t, doc.ConfigMapRef)
	require.NotNil(t, doc.ValidationConfigMapRef)
	for _, ref := range []*configdoc.ConfigMapRef{doc.ConfigMapRef, doc.ValidationConfigMapRef} {
		if len(rec.recipes) == 0 || rec.recipes[0].Name != ref.Name {
			rec.recipes = append(rec.recipes, liveConfigMap(t, ref.Name))
		}
	}
	_, stall := readBack(t, rec)
	require.Nil(t, stall, "the plan reads before anything is lost")
	return rec
}

func liveConfigMap(t *testing.T, name string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, cm))
	return cm
}

// readBack reads the plan as the runtime and rollout controllers do (planstore.Reader): its
// document with every release's values, checked against the plan's digest, and its validation
// recipe, checked against the digest the plan records.
func readBack(t *testing.T, rec recorded) (*domain.Environment, *domain.Stall) {
	t.Helper()
	ctx := context.Background()
	plans := planstore.NewReader(k8s, operatorNS, sealtest.New())
	doc, stall, err := plans.Document(ctx, rec.digest, string(rec.cr.UID))
	require.NoError(t, err)
	if stall != nil {
		return nil, stall
	}
	env := &domain.Environment{}
	stall, err = plans.ReadValidation(ctx, doc, env)
	require.NoError(t, err)
	return env, stall
}

// lose deletes cms and waits until each is back as the operator writes it (rebuilt).
func lose(t *testing.T, rec recorded, cms ...*corev1.ConfigMap) {
	t.Helper()
	for _, cm := range cms {
		require.NoError(t, k8s.Delete(context.Background(), cm))
	}
	for _, cm := range cms {
		rebuilt(t, rec, cm.UID, cm)
	}
}

// rebuilt waits until the ConfigMap of want's name is another object than gone (UID) with
// want's data, immutable and labelled for its role and runtime.
func rebuilt(t *testing.T, rec recorded, gone types.UID, want *corev1.ConfigMap) {
	t.Helper()
	back := &corev1.ConfigMap{}
	require.Eventually(t, func() bool {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(want), back)
		return err == nil && back.UID != gone
	}, wait, tick, "%s rebuilt", want.Name)
	assert.Equal(t, want.Data, back.Data, want.Name)
	assert.Equal(t, ptr.To(true), back.Immutable)
	assert.Equal(t, want.Labels[aicrv1alpha1.LabelRole], back.Labels[aicrv1alpha1.LabelRole])
	assert.Equal(t, string(rec.cr.UID), back.Labels[aicrv1alpha1.LabelRuntimeUID])
}

// eventually waits for an Event of reason on the runtime.
func eventually(t *testing.T, rec recorded, reason string) {
	t.Helper()
	require.Eventually(t, func() bool { return eventReasons(context.Background(), rec.cr)[reason] > 0 }, wait, tick,
		"event %s; events %v", reason, eventReasons(context.Background(), rec.cr))
}

// TestPlanParts_LostValuesRebuiltFromTheBundle: a deleted values ConfigMap of the recorded plan
// is rebuilt from the plan's bundle, pulled again from the runtime registry by the digest the
// plan records, with every release's values checked against the plan; no Job runs again and
// the plan reads again as the runtime and rollout read it.
func TestPlanParts_LostValuesRebuiltFromTheBundle(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	bundles := serveBundleRegistry(t, pushPass)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(),
		registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
	rec := resolveRecorded(t)
	lose(t, rec, rec.values)
	eventually(t, rec, domain.EventPlanPartsRebuilt.String())
	_, stall := readBack(t, rec)
	assert.Nil(t, stall)
	resolved(t, domain.ReasonResolved)
	assert.Equal(t, 1, countJobs(h, "bundle"), "rebuilt, not resolved again")
}

// TestPlanParts_LostRecipesRebuilt: deleted recipe ConfigMaps of the recorded plan are rebuilt:
// the recipe from the recipe stage's result, the validation recipe from the plan's bundle
// pulled again by digest, each checked against the digest the plan records; deployment
// validation reads its recipe again.
func TestPlanParts_LostRecipesRebuilt(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	bundles := serveBundleRegistry(t, pushPass)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(),
		registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
	rec := resolveRecorded(t)
	lose(t, rec, rec.recipes...)
	eventually(t, rec, domain.EventPlanPartsRebuilt.String())
	env, stall := readBack(t, rec)
	require.Nil(t, stall)
	assert.NotEmpty(t, env.ValidationRecipe)
	assert.Equal(t, 1, countJobs(h, "bundle"), "rebuilt, not resolved again")
}

// TestPlanParts_UnprovenResolvedAgain: without a bundle to pull again (no runtime registry),
// lost values and validation recipe cannot be proven: the plan is resolved again (a new bundle
// Job), which writes them again, and it reads again.
func TestPlanParts_UnprovenResolvedAgain(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	rec := resolveRecorded(t)
	assert.Equal(t, wantDigest(t, v1Synthetic), rec.digest)
	lose(t, rec, append([]*corev1.ConfigMap{rec.values}, rec.recipes...)...)
	eventually(t, rec, domain.EventPlanResolvedAgain.String())
	env, stall := readBack(t, rec)
	require.Nil(t, stall)
	assert.NotEmpty(t, env.ValidationRecipe)
	require.Eventually(t, func() bool { return countJobs(h, "bundle") == 2 }, wait, tick)
	assert.Equal(t, 1, countJobs(h, "snapshot"))
}

// TestPlanParts_ForgedPartNotTrusted: a lost values or recipe ConfigMap put back with other
// content (while the operator was down) is neither used nor replaced: the resolution stalls
// Conflict naming it, the plan stays unreadable to the runtime and the rollout, and once the
// forged ConfigMap is deleted the operator rebuilds the real one.
func TestPlanParts_ForgedPartNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pick   func(recorded) *corev1.ConfigMap
		reason domain.StallReason
	}{
		{"Values", func(r recorded) *corev1.ConfigMap { return r.values }, domain.StallPlanUnreadable},
		{"ValidationRecipe", func(r recorded) *corev1.ConfigMap { return r.recipes[len(r.recipes)-1] }, domain.StallPlanUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			bundles := serveBundleRegistry(t, pushPass)
			h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(),
				registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
			rec := resolveRecorded(t)
			real := tc.pick(rec)
			h.stopResolver()
			ctx := context.Background()
			require.NoError(t, k8s.Delete(ctx, real))
			forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: real.Name, Namespace: operatorNS,
				Labels: maps.Clone(real.Labels), Annotations: maps.Clone(real.Annotations)},
				Immutable: ptr.To(true), Data: maps.Clone(real.Data)}
			for k := range forged.Data {
				forged.Data[k] = `{"forged":true}`
			}
			require.Eventually(t, func() bool {
				err := k8s.Create(ctx, forged.DeepCopy())
				return err == nil || !apierrors.IsAlreadyExists(err)
			}, wait, tick)
			h.runResolver(t)

			cond, _ := resolved(t, string(domain.StallConflict))
			assert.Contains(t, cond.Message, "ConfigMap "+real.Name+" of plan "+rec.digest+" holds other content than the plan records: "+
				"the operator neither uses nor replaces it; delete it and the operator rebuilds it")
			_, stall := readBack(t, rec)
			require.NotNil(t, stall, "the forged content is not read")
			assert.Equal(t, tc.reason, stall.Reason())
			kept := liveConfigMap(t, real.Name)
			assert.Equal(t, forged.Data, kept.Data, "the forged ConfigMap is not replaced")

			require.NoError(t, k8s.Delete(ctx, kept))
			rebuilt(t, rec, kept.UID, real)
			resolved(t, domain.ReasonResolved)
			_, stall = readBack(t, rec)
			assert.Nil(t, stall)
			assert.Equal(t, 1, countJobs(h, "bundle"))
		})
	}
}
