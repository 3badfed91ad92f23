package chart_test

import (
	"fmt"
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

	"github.com/nvidia/aicr-operator/test/chartrender"
)

// renderHelm4 renders the chart into the release namespace with values as Helm v4's `helm
// template` does for Kubernetes 1.34.4 (a client-side dry run) and returns its objects in
// Helm's install order, as render does with Helm v3.
func renderHelm4(values map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := helm4loader.Load(chartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	cfg := helm4action.NewConfiguration()
	cfg.SetLogger(slog.DiscardHandler)
	install := helm4action.NewInstall(cfg)
	install.DryRunStrategy, install.Replace, install.IncludeCRDs = helm4action.DryRunClient, true, true
	install.ReleaseName = chartrender.ReleaseName
	install.Namespace = releaseNamespace
	if install.KubeVersion, err = helm4common.ParseKubeVersion("v1.34.4"); err != nil {
		return nil, fmt.Errorf("kube version: %w", err)
	}
	out, err := install.Run(chrt, values)
	if err != nil {
		return nil, fmt.Errorf("render chart with helm v4: %w", err)
	}
	rel, ok := out.(*helm4release.Release)
	if !ok {
		return nil, fmt.Errorf("render chart with helm v4: a release of type %T", out)
	}
	manifests := helm4util.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(helm4util.BySplitManifestsOrder(keys))
	return chartrender.DecodeManifests(manifests, keys)
}

// TestChartRendersTheSameWithHelm3AndHelm4: every object the chart renders, with the required
// values only and with every option on, is the same with Helm v3 and with Helm v4 (what Argo
// CD and AICR render with), in the same install order; so every chart test, which reads Helm
// v3's render, holds for Helm v4 too.
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
			v4, err := renderHelm4(values)
			require.NoError(t, err)
			require.NotEmpty(t, v3)
			assert.Equal(t, v3, v4)
		})
	}
}
