package chart_test

import (
	"log/slog"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	helm4action "helm.sh/helm/v4/pkg/action"
	helm4common "helm.sh/helm/v4/pkg/chart/common"
	helm4loader "helm.sh/helm/v4/pkg/chart/v2/loader"
	helm4release "helm.sh/helm/v4/pkg/release/v1"
	helm4util "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// releaseHelm4 renders the chart into the release namespace with values as Helm v4's `helm
// template` does for Kubernetes 1.34.4 (a client-side dry run), as renderRelease does with
// Helm v3.
func releaseHelm4(t *testing.T, values map[string]any) *helm4release.Release {
	t.Helper()
	chrt, err := helm4loader.Load(chartDir())
	require.NoError(t, err)
	cfg := helm4action.NewConfiguration()
	cfg.SetLogger(slog.DiscardHandler)
	install := helm4action.NewInstall(cfg)
	install.DryRunStrategy, install.Replace, install.IncludeCRDs = helm4action.DryRunClient, true, true
	install.ReleaseName = chartrender.ReleaseName
	install.Namespace = releaseNamespace
	install.KubeVersion, err = helm4common.ParseKubeVersion("v1.34.4")
	require.NoError(t, err)
	out, err := install.Run(chrt, values)
	require.NoError(t, err)
	rel, ok := out.(*helm4release.Release)
	require.True(t, ok, "a release of type %T", out)
	return rel
}

// renderHelm4 returns the objects of releaseHelm4 in Helm's install order, as render does.
func renderHelm4(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	manifests := helm4util.SplitManifests(releaseHelm4(t, values).Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(helm4util.BySplitManifestsOrder(keys))
	objs, err := chartrender.DecodeManifests(manifests, keys)
	require.NoError(t, err)
	return objs
}

// TestChartRendersTheSameWithHelm3AndHelm4: every object the chart renders, its helm test
// hooks and its NOTES, with the required values only and with every option on, are the same
// with Helm v3 and with Helm v4 (what Argo CD and AICR render with), objects in the same
// install order; so every chart test, which reads Helm v3's render, holds for Helm v4 too.
func TestChartRendersTheSameWithHelm3AndHelm4(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{
		"required values only": requiredValues(),
		"every option on":      everythingValues(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v3, err := render(values)
			require.NoError(t, err)
			require.NotEmpty(t, v3)
			assert.Equal(t, v3, renderHelm4(t, values), "objects")
			rel3, rel4 := renderRelease(t, values), releaseHelm4(t, values)
			assert.Equal(t, rel3.Info.Notes, rel4.Info.Notes, "NOTES.txt")
			require.Len(t, rel4.Hooks, len(rel3.Hooks), "hooks")
			for i := range rel3.Hooks {
				var hook3, hook4 map[string]any
				require.NoError(t, yaml.Unmarshal([]byte(rel3.Hooks[i].Manifest), &hook3))
				require.NoError(t, yaml.Unmarshal([]byte(rel4.Hooks[i].Manifest), &hook4))
				assert.Equal(t, hook3, hook4, "hook %s (Helm v4 only ends it with a newline)", rel3.Hooks[i].Path)
			}
		})
	}
}
