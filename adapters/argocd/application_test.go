package argocd_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/chartref"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

const pinned = "sha256:0f3c2b1a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"

func release(ns, id string) ports.ReleaseSpec {
	return ports.ReleaseSpec{
		Ref:       ports.ReleaseRef{ID: id, Namespace: ns},
		Chart:     ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1", ManifestDigest: pinned},
		Values:    map[string]any{"driver": map[string]any{"enabled": true}},
		Policy:    ports.EnginePolicy{CreateNamespace: true, ServerSideApply: true},
		DependsOn: []string{"cert-manager", "nfd"},
		Owner:     ports.ReleaseOwner{RuntimeUID: "uid-shape", PlanDigest: "sha256:plan", Rollout: "rollout-0123456789abcdef-1"},
	}
}

func getApp(t *testing.T, ref ports.ReleaseRef) *argov1.Application {
	t.Helper()
	app := &argov1.Application{}
	require.NoError(t, admin.Get(t.Context(), client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}, app))
	return app
}

// TestApplyWritesTheApplication checks every field ENG-1 and ENG-2 ask for
// and FORMAT.md section 5.1 maps from deploy.sh.
func TestApplyWritesTheApplication(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("gpu-operator", "gpu-operator")
	require.NoError(t, e.Apply(t.Context(), s))

	app := getApp(t, s.Ref)
	assert.Equal(t, "gpu-operator.gpu-operator", app.Name)
	assert.Equal(t, argocd.DefaultProject, app.Spec.Project)
	assert.Equal(t, "oci://"+testRegistry+"/charts/gpu-operator", app.Spec.Source.RepoURL, "ENG-1 native OCI source")
	assert.Empty(t, app.Spec.Source.Chart)
	assert.Equal(t, ".", app.Spec.Source.Path)
	assert.Equal(t, pinned, app.Spec.Source.TargetRevision, "pinned by the mirrored manifest digest")
	assert.Equal(t, "gpu-operator", app.Spec.Source.Helm.ReleaseName)
	assert.JSONEq(t, `{"driver":{"enabled":true}}`, string(app.Spec.Source.Helm.ValuesObject.Raw))
	assert.Empty(t, app.Spec.Source.Helm.Values)
	assert.Equal(t, argov1.ApplicationDestination{Server: argocd.InClusterServer, Namespace: "gpu-operator"}, app.Spec.Destination)
	require.NotNil(t, app.Spec.SyncPolicy.Automated)
	assert.True(t, app.Spec.SyncPolicy.Automated.Prune)
	assert.True(t, app.Spec.SyncPolicy.Automated.SelfHeal)
	assert.Equal(t, argov1.SyncOptions{"CreateNamespace=true", "ServerSideApply=true"}, app.Spec.SyncPolicy.SyncOptions)
	assert.Empty(t, app.Finalizers, "no cascade finalizer outside Remove (ENG-3)")

	assert.Equal(t, wellknown.ManagedByValue, app.Labels[wellknown.LabelManagedBy])
	assert.Equal(t, "uid-shape", app.Labels[wellknown.LabelRuntimeUID])
	assert.Equal(t, "uid-shape", app.Annotations[wellknown.AnnotationRuntimeUID])
	assert.Equal(t, "sha256:plan", app.Annotations[wellknown.AnnotationPlanDigest])
	assert.Equal(t, "gpu-operator", app.Annotations[wellknown.AnnotationRelease])
	assert.Equal(t, "rollout-0123456789abcdef-1", app.Annotations[argocd.AnnotationRollout])
	assert.JSONEq(t, `["cert-manager","nfd"]`, app.Annotations[wellknown.AnnotationPlanGraph])
}

func TestApplyLocalChartFromWrappersWithoutPolicy(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{Registry: "oci.test/aicr/"})
	s := release("gpu-operator", "gpu-operator-post")
	s.Chart = ports.ChartSource{Name: "gpu-operator-post", Version: "0.1.0", ManifestDigest: pinned}
	s.Policy, s.Values, s.DependsOn = ports.EnginePolicy{}, nil, nil
	require.NoError(t, e.Apply(t.Context(), s))
	app := getApp(t, s.Ref)
	assert.Equal(t, "oci://oci.test/aicr/wrappers/gpu-operator-post", app.Spec.Source.RepoURL)
	assert.Empty(t, app.Spec.SyncPolicy.SyncOptions)
	assert.Nil(t, app.Spec.Source.Helm.ValuesObject)
	assert.Empty(t, app.Spec.Source.Helm.Values)
	assert.Equal(t, "[]", app.Annotations[wellknown.AnnotationPlanGraph])
}

// TestNullsSurviveTheAPIServer: a null goes through helm.values (YAML) and
// is still there when read back raw from the API server (FORMAT.md 5.1).
func TestNullsSurviveTheAPIServer(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("nulls", "nulls")
	s.Values = map[string]any{"tolerations": nil, "driver": map[string]any{"rdma": nil, "version": "580.95.05"}}
	require.NoError(t, e.Apply(t.Context(), s))

	raw := &unstructured.Unstructured{}
	raw.SetGroupVersionKind(argov1.ApplicationSchemaGroupVersionKind)
	require.NoError(t, admin.Get(t.Context(), client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(s.Ref)}, raw))
	_, hasObject, err := unstructured.NestedFieldNoCopy(raw.Object, "spec", "source", "helm", "valuesObject")
	require.NoError(t, err)
	assert.False(t, hasObject, "valuesObject would lose the nulls")
	yamlValues, _, err := unstructured.NestedString(raw.Object, "spec", "source", "helm", "values")
	require.NoError(t, err)
	assert.Contains(t, yamlValues, "tolerations: null")
	assert.Contains(t, yamlValues, "rdma: null")

	stored, err := sim.Values(t.Context(), s.Ref)
	require.NoError(t, err)
	got, err := json.Marshal(stored)
	require.NoError(t, err)
	assert.JSONEq(t, `{"tolerations":null,"driver":{"rdma":null,"version":"580.95.05"}}`, string(got))
}

// TestApplyStripsTheCascadeFinalizer: a resources finalizer on an owned
// Application outside Remove is taken off by the next Apply (ENG-3).
func TestApplyStripsTheCascadeFinalizer(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("strip", "strip")
	require.NoError(t, e.Apply(t.Context(), s))
	app := getApp(t, s.Ref)
	app.Finalizers = []string{argov1.ResourcesFinalizerName, "example.com/keep"}
	require.NoError(t, admin.Update(t.Context(), app))
	require.NoError(t, e.Apply(t.Context(), s))
	assert.Equal(t, []string{"example.com/keep"}, getApp(t, s.Ref).Finalizers)
}

func TestApplyRefusesAnUnpinnedChart(t *testing.T) {
	t.Parallel()
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	s := release("unpinned", "unpinned")
	s.Chart.ManifestDigest = ""
	require.ErrorIs(t, e.Apply(t.Context(), s), chartref.ErrUnpinned)
	assert.Zero(t, writes.Load())
}

// The engine records the owner in the annotations and reads it back; its Applications carry
// the managed-by label its cache selects (ENG-2, CH-4).
func TestOwnerRecordedAndReadBack(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("owner", "owner")
	require.NoError(t, e.Apply(t.Context(), s))
	st, err := e.Status(t.Context(), s.Ref)
	require.NoError(t, err)
	assert.Equal(t, s.Owner, st.Owner)
	app := getApp(t, s.Ref)
	assert.Equal(t, wellknown.ManagedByValue, app.Labels[wellknown.LabelManagedBy])
	assert.IsType(t, &argov1.Application{}, argocd.NewApplicationObject())
	assert.Equal(t, argocd.DefaultNamespace, e.Namespace())
}
