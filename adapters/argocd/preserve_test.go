package argocd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// foreignFields are fields of an Application the operator's API types do not model: Argo
// CD's status history and summary, and spec fields a user may set.
const foreignFields = `{
  "spec": {"ignoreDifferences": [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}],
           "info": [{"name": "team", "value": "gpu"}], "revisionHistoryLimit": 3},
  "status": {"history": [{"id": 1, "revision": "sha256:old", "deployedAt": "2026-11-29T12:00:00Z"}],
             "summary": {"images": ["nvcr.io/nvidia/gpu-operator:v25.10.1"]}}}`

// TestWritesKeepFieldsTheTypesDoNotModel: every write of the engine (Apply of a change,
// Suspend, Remove) patches only what it changed, so the fields its types drop on decode
// survive on the API server.
func TestWritesKeepFieldsTheTypesDoNotModel(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	s := release("keep", "keep")
	require.NoError(t, e.Apply(ctx, s))
	key, app := mergePatchApp(t, s.Ref, foreignFields)
	want := foreign(t, app)
	t.Cleanup(func() { deleteApp(t, s.Ref) })

	s.Values = map[string]any{"driver": map[string]any{"enabled": false}}
	for _, step := range []struct {
		name  string
		write func() error
	}{
		{"apply", func() error { return e.Apply(ctx, s) }},
		{"suspend", func() error { return e.Suspend(ctx, s.Ref, s.Owner, true) }},
		{"remove", func() error { return e.Remove(ctx, s.Ref, s.Owner) }},
	} {
		before := writes.Load()
		require.NoError(t, step.write(), step.name)
		assert.Greater(t, writes.Load(), before, "%s wrote", step.name)
		require.NoError(t, admin.Get(ctx, key, app))
		assert.Equal(t, want, foreign(t, app), "%s kept the fields it does not model", step.name)
	}
	require.NoError(t, admin.Get(ctx, key, app))
	values, _, err := unstructured.NestedMap(app.Object, "spec", "source", "helm", "valuesObject")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"driver": map[string]any{"enabled": false}}, values)
	assert.NotNil(t, app.GetDeletionTimestamp())
}

// deleteApp deletes the Application of ref and completes its deletion as Argo CD would, then
// waits until the API server no longer has it, so a later run of the test (go test -count=N
// shares the control plane) starts without it. It runs from t.Cleanup, after t.Context() is
// cancelled, so it uses a context of its own.
func deleteApp(t *testing.T, ref ports.ReleaseRef) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key := client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}
	app := &argov1.Application{}
	app.SetNamespace(key.Namespace)
	app.SetName(key.Name)
	if err := admin.Delete(ctx, app); err != nil && !apierrors.IsNotFound(err) {
		require.NoError(t, err)
	}
	require.NoError(t, sim.FinishDeletion(ctx, ref))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(admin.Get(ctx, key, &argov1.Application{}))
	}, time.Minute, 50*time.Millisecond, "application %s is gone", key)
}

// foreign returns the fields of foreignFields as app holds them.
func foreign(t *testing.T, app *unstructured.Unstructured) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, path := range [][]string{
		{"spec", "ignoreDifferences"}, {"spec", "info"}, {"spec", "revisionHistoryLimit"},
		{"status", "history"}, {"status", "summary"},
	} {
		v, found, err := unstructured.NestedFieldCopy(app.Object, path...)
		require.NoError(t, err)
		require.True(t, found, "%v", path)
		out[path[1]] = v
	}
	return out
}

// mergePatchApp merges patch into the Application of ref as an administrator would and returns
// its key and the patched object as the API server returned it, fields the types do not model
// included.
func mergePatchApp(t *testing.T, ref ports.ReleaseRef, patch string) (client.ObjectKey, *unstructured.Unstructured) {
	t.Helper()
	key := client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}
	app := &unstructured.Unstructured{}
	app.SetGroupVersionKind(argov1.ApplicationSchemaGroupVersionKind)
	app.SetNamespace(key.Namespace)
	app.SetName(key.Name)
	require.NoError(t, admin.Patch(t.Context(), app, client.RawPatch(types.MergePatchType, []byte(patch))))
	return key, app
}
