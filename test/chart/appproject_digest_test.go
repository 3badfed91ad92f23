package chart_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// projectDigest computes in Go, with the operator's own argocd.ProjectDigest, the
// --engine-project-digest value of the rendered AppProject: the Deployment must pass exactly
// this, so the chart's template and the operator hash the same spec the same way.
func projectDigest(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	project := find(objs, "AppProject", "argocd", "aicr")
	require.NotNil(t, project, "the chart renders the AppProject argocd/aicr")
	spec, _, err := unstructured.NestedMap(project.Object, "spec")
	require.NoError(t, err)
	digest, err := argocd.ProjectDigest(spec)
	require.NoError(t, err)
	return digest
}

// TestEngineProjectDigestIsTheOperatorsDigest: for the default values, an empty allow-list (an
// empty field the digest leaves out) and other component namespaces, the digest the chart
// passes is the one the operator computes from the AppProject the chart renders, and each
// AppProject has its own.
func TestEngineProjectDigestIsTheOperatorsDigest(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for name, values := range map[string]map[string]any{
		"required values only": requiredValues(),
		"no cluster resources": withValues(map[string]any{"engine.clusterResources": []any{}}),
		"other components":     withValues(map[string]any{"namespaces.components": chartrender.Components("gpu-operator", "network-operator")}),
	} {
		objs, err := render(values)
		require.NoError(t, err, name)
		args, err := chartrender.OperatorArgs(objs, releaseNamespace)
		require.NoError(t, err, name)
		got := chartrender.FlagValue(args, "--engine-project-digest")
		assert.Equal(t, projectDigest(t, objs), got, name)
		assert.NotContains(t, seen, got, "%s renders the AppProject of %s", name, seen[got])
		seen[got] = name
	}
}
