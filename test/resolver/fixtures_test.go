package resolver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// TestResolve_V1FixturesMatchOfflinePlan resolves each v1-layout fixture
// through real Jobs and checks the plan ConfigMap against the digest the
// offline reader prints (RES-1, PLAN-1, PLAN-2, PLAN-6, RES-7).
func TestResolve_V1FixturesMatchOfflinePlan(t *testing.T) {
	for _, tc := range []struct{ dir, version string }{
		{v1Synthetic, "1.1.0"},
		{"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic/bundle-helm", "1.0.0"},
		{"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic/bundle-helm", "1.1.0"},
	} {
		t.Run(strings.Split(tc.dir, "/")[0], func(t *testing.T) {
			f, allowed := fixture(t, tc.version, tc.dir, nil)
			h := start(t, options{version: tc.version, allowed: allowed, behavior: f.Behavior()})
			cr := createRuntime(t, runtimeSpec())
			want := wantDigest(t, tc.dir)

			cond, live := resolved(t, domain.ReasonResolved)
			assert.Equal(t, metav1.ConditionTrue, cond.Status)
			assert.Equal(t, "candidate plan "+want, cond.Message)
			assert.True(t, h.clock.Now().Equal(cond.LastTransitionTime.Time), "transition time from the fake clock")
			assert.Equal(t, want, live.Status.CandidatePlanDigest)
			assertPlan(t, planConfigMap(t, want), want, string(cr.UID))
			assert.Len(t, h.Executed(), 3, "snapshot, recipe and bundle jobs")
			assertJobsGone(t)
		})
	}
}

// TestResolve_OverrideAliasAccepted: an override may name a component by a
// registry valueOverrideKeys alias, which only AICR knows; the bundle Job gets
// it as written and the plan resolves (RES-3).
func TestResolve_OverrideAliasAccepted(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	var mu sync.Mutex
	var bundleArgs []string
	played := f.Behavior()
	start(t, options{version: "1.1.0", allowed: allowed, behavior: func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if ports.JobKind(job.Labels[jobs.KindLabel]) == ports.JobBundle {
			mu.Lock()
			bundleArgs = jobexec.AICRArgs(job)
			mu.Unlock()
		}
		return played(job, in)
	}})
	spec := runtimeSpec()
	spec.Overrides = []aicrv1alpha1.Override{{Component: "gpuoperator", Path: "driver.version", Value: apiextensionsv1.JSON{Raw: []byte(`"580.95.05"`)}}}
	createRuntime(t, spec)
	cond, _ := resolved(t, domain.ReasonResolved)
	assert.Equal(t, metav1.ConditionTrue, cond.Status)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, bundleArgs, `gpuoperator:driver.version="580.95.05"`)
}

func assertPlan(t *testing.T, cm *corev1.ConfigMap, digest, uid string) {
	t.Helper()
	assert.True(t, *cm.Immutable)
	assert.Empty(t, cm.OwnerReferences)
	assert.Equal(t, aicrv1alpha1.RolePlan, cm.Labels[aicrv1alpha1.LabelRole])
	assert.Equal(t, "2", cm.Labels[aicrv1alpha1.LabelSchemaVersion])
	assert.Equal(t, uid, cm.Labels[aicrv1alpha1.LabelRuntimeUID])
	assert.Equal(t, digest, cm.Annotations[aicrv1alpha1.AnnotationPlanDigest])
	stored, err := configdoc.DecodePlan([]byte(cm.Data[configdoc.PlanKey]))
	require.NoError(t, err, "the rollout controller's codec reads the plan")
	assert.Equal(t, digest, stored.Digest)
	assert.Equal(t, uid, stored.RuntimeUID)
	assert.Equal(t, domain.SourceResolved, stored.Source)
	assert.Equal(t, image, stored.AICRImage)
	assert.Nil(t, domain.CheckPlanReadable(plantrust.Stored(cm), uid))
	assert.NotNil(t, stored.RenderFlags)
	for _, ref := range []*configdoc.ConfigMapRef{stored.ConfigMapRef, stored.ValidationConfigMapRef} {
		require.NotNil(t, ref)
		other := &corev1.ConfigMap{}
		require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: ref.Name}, other))
		assert.True(t, *other.Immutable, ref.Name)
		assert.Equal(t, aicrv1alpha1.RoleRecipe, other.Labels[aicrv1alpha1.LabelRole])
		assert.Equal(t, ref.Digest, configdoc.ContentDigest([]byte(other.Data[configdoc.RecipeKey])), ref.Name)
	}
	assertValues(t, stored, uid)
}

// assertValues checks the values ConfigMap of a plan as the resolver writes it (PLAN-3):
// immutable, operator-labelled, one key per release holding values of its valuesDigest.
func assertValues(t *testing.T, stored *configdoc.Plan, uid string) {
	t.Helper()
	require.Len(t, stored.ValuesRefs, len(stored.Releases))
	values := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: stored.ValuesRefs[0].Name}, values))
	assert.True(t, *values.Immutable)
	assert.Empty(t, values.OwnerReferences)
	assert.Regexp(t, `^aicr-values-[0-9a-f]{16}$`, values.Name)
	assert.Equal(t, aicrv1alpha1.RoleValues, values.Labels[aicrv1alpha1.LabelRole])
	assert.Equal(t, uid, values.Labels[aicrv1alpha1.LabelRuntimeUID])
	assert.Equal(t, aicrv1alpha1.ManagedByValue, values.Labels[aicrv1alpha1.LabelManagedBy])
	assert.Equal(t, stored.Digest, values.Annotations[aicrv1alpha1.AnnotationPlanDigest])
	assert.Len(t, values.Data, len(stored.Releases))
	for i, r := range stored.Releases {
		ref := stored.ValuesRefs[i]
		assert.Equal(t, configdoc.ValuesRef{Name: values.Name, Key: r.ID, Digest: r.ValuesDigest}, ref)
		got, err := configdoc.DecodeValues(ref, r.ValuesDigest, values.Data)
		require.NoError(t, err, r.ID)
		d, err := domain.Digest(got)
		require.NoError(t, err)
		assert.Equal(t, r.ValuesDigest, d, r.ID)
	}
}

// assertJobsGone waits until every Job was deleted once its output was recorded (RES-7).
func assertJobsGone(t *testing.T) {
	t.Helper()
	require.Eventually(t, noJobs, wait, tick, "jobs deleted after their outputs were recorded")
	kept := &corev1.ConfigMapList{}
	require.NoError(t, k8s.List(context.Background(), kept, client.InNamespace(operatorNS),
		client.MatchingLabels{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleSnapshot}))
	assert.NotEmpty(t, kept.Items, "kept snapshot copies")
}
