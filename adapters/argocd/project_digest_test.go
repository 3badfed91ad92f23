package argocd_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
)

// noKind is a reader of an API server that does not serve Argo CD's kinds.
type noKind struct{ client.Reader }

func (noKind) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "argoproj.io", Kind: "AppProject"}}
}

// TestProjectDigestLeavesOutEmptyFields: fields that hold nothing do not enter the digest, any
// other difference does.
func TestProjectDigestLeavesOutEmptyFields(t *testing.T) {
	t.Parallel()
	digest := func(spec map[string]any) string {
		d, err := argocd.ProjectDigest(spec)
		require.NoError(t, err)
		return d
	}
	base := map[string]any{"sourceRepos": []any{"registry.example.com/aicr/charts/*"}}
	assert.Equal(t, digest(base), digest(map[string]any{"sourceRepos": base["sourceRepos"],
		"clusterResourceWhitelist": []any{}, "description": "", "syncWindows": nil, "roles": map[string]any{}}))
	assert.NotEqual(t, digest(base), digest(map[string]any{"sourceRepos": []any{"*"}}))
	assert.NotEqual(t, digest(base), digest(map[string]any{"sourceRepos": base["sourceRepos"],
		"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}}}))
}

// TestProjectGuard: the live AppProject of the suite (an empty spec) passes against its digest
// and is named when the digest differs or it is missing; without Argo CD's API there is nothing
// to check.
func TestProjectGuard(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	empty, err := argocd.ProjectDigest(nil)
	require.NoError(t, err)

	problem, err := argocd.ProjectGuard(c, argocd.DefaultNamespace, argocd.DefaultProject, empty)(ctx)
	require.NoError(t, err)
	assert.Empty(t, problem)

	other, err := argocd.ProjectDigest(map[string]any{"sourceRepos": []any{"*"}})
	require.NoError(t, err)
	problem, err = argocd.ProjectGuard(c, argocd.DefaultNamespace, argocd.DefaultProject, other)(ctx)
	require.NoError(t, err)
	assert.Contains(t, problem, "AppProject argocd/aicr is not what the chart rendered (spec digest "+empty[:12]+", the chart's "+other[:12]+")")

	problem, err = argocd.ProjectGuard(c, argocd.DefaultNamespace, "not-there", empty)(ctx)
	require.NoError(t, err)
	assert.Equal(t, "AppProject argocd/not-there is missing", problem)

	problem, err = argocd.ProjectGuard(noKind{}, argocd.DefaultNamespace, argocd.DefaultProject, other)(ctx)
	require.NoError(t, err)
	assert.Empty(t, problem, "EngineMissing is the engine's to report")
}
