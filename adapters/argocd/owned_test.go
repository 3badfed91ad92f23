package argocd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/adapters/argocd"
)

// unrendered are fields of the parts of an Application the engine owns that its types do
// not model: a Helm parameter and a values file overriding the plan's values, a Kustomize
// patch, a second destination, a sync retry and namespace metadata nobody rendered.
const unrendered = `{"spec": {
  "source": {"helm": {"parameters": [{"name": "driver.version", "value": "1.0.0"}], "valueFiles": ["evil.yaml"]},
             "kustomize": {"namePrefix": "x-"}},
  "destination": {"name": "other-cluster"},
  "syncPolicy": {"retry": {"limit": 9}, "managedNamespaceMetadata": {"labels": {"team": "x"}},
                 "automated": {"allowEmpty": true}}}}`

// TestApplyOwnsSourceDestinationAndSyncPolicyWhole: spec.source is exactly the pinned
// chart with the plan's values (ENG-1), so the engine's next write removes what it owns
// and did not write, and keeps what it does not own (TestWritesKeepFieldsTheTypesDoNotModel).
// Once removed, a repeated Apply writes nothing.
func TestApplyOwnsSourceDestinationAndSyncPolicyWhole(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	s := release("owned", "owned")
	require.NoError(t, e.Apply(ctx, s))
	mergePatchApp(t, s.Ref, unrendered)
	key, app := mergePatchApp(t, s.Ref, foreignFields)
	kept := foreign(t, app)
	for _, path := range unrenderedPaths {
		_, found, err := unstructured.NestedFieldNoCopy(app.Object, path...)
		require.NoError(t, err)
		require.True(t, found, "the API server kept %v", path)
	}
	tampered := getApp(t, s.Ref)
	require.NotNil(t, tampered.Spec.Source.Helm)
	assert.Contains(t, tampered.Spec.Source.Helm.Unmodeled, "parameters", "the engine sees what it does not model")

	before := writes.Load()
	require.NoError(t, e.Apply(ctx, s))
	assert.Equal(t, before+1, writes.Load(), "one write removes what the plan did not render")
	require.NoError(t, admin.Get(ctx, key, app))
	for _, path := range unrenderedPaths {
		_, found, err := unstructured.NestedFieldNoCopy(app.Object, path...)
		require.NoError(t, err)
		assert.False(t, found, "%v removed", path)
	}
	assert.Equal(t, kept, foreign(t, app), "what the engine does not own is kept")
	want := getApp(t, s.Ref)
	assert.Equal(t, "https://kubernetes.default.svc", want.Spec.Destination.Server)
	assert.True(t, want.Spec.SyncPolicy.Automated.Prune && want.Spec.SyncPolicy.Automated.SelfHeal)

	before = writes.Load()
	require.NoError(t, e.Apply(ctx, s))
	assert.Equal(t, before, writes.Load(), "nothing left to remove: no write")
}

var unrenderedPaths = [][]string{
	{"spec", "source", "helm", "parameters"}, {"spec", "source", "helm", "valueFiles"}, {"spec", "source", "kustomize"},
	{"spec", "destination", "name"}, {"spec", "syncPolicy", "retry"}, {"spec", "syncPolicy", "managedNamespaceMetadata"},
	{"spec", "syncPolicy", "automated", "allowEmpty"},
}
