package aicr_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

const fixtures = "../../test/testdata/aicr"

// v1Fixtures are every v1-layout fixture with its golden release list.
var v1Fixtures = []string{
	"v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow",
	"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
	"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
}

type goldenRelease struct {
	Order     int    `json:"order"`
	Name      string `json:"name"`
	Component string `json:"component"`
	Namespace string `json:"namespace"`
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Chart     struct {
		RepoURL string `json:"repoURL"`
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"chart"`
	ContentDigest string         `json:"contentDigest"`
	Values        map[string]any `json:"values"`
	ValuesDigest  string         `json:"valuesDigest"`
}

func readGolden(t *testing.T, dir string) (string, []goldenRelease) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, dir, "expected-releases.json"))
	require.NoError(t, err)
	var g struct {
		Meta struct {
			AICRVersion string `json:"aicrVersion"`
		} `json:"meta"`
		Releases []goldenRelease `json:"releases"`
	}
	require.NoError(t, json.Unmarshal(data, &g))
	return g.Meta.AICRVersion, g.Releases
}

func TestReadDir_MatchesGoldens(t *testing.T) {
	t.Parallel()
	for _, dir := range v1Fixtures {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			version, want := readGolden(t, dir)
			b, err := aicr.ReadDir(filepath.Join(fixtures, dir, "bundle-helm"))
			require.NoError(t, err)
			assert.Equal(t, ports.LayoutV1, b.Layout)
			assert.Equal(t, version, b.AICRVersion)
			require.Len(t, b.Releases, len(want))
			for i, w := range want {
				got := b.Releases[i]
				assert.Equal(t, w.Order, got.Order, w.Name)
				assert.Equal(t, w.Name, got.Name)
				assert.Equal(t, w.Component, got.Component, w.Name)
				assert.Equal(t, w.Namespace, got.Namespace, w.Name)
				assert.Equal(t, w.Path, got.Path, w.Name)
				assert.Equal(t, w.Kind, string(got.Kind), w.Name)
				assert.Equal(t, w.Chart.RepoURL, got.Chart.Repository, w.Name)
				assert.Equal(t, w.Chart.Name, got.Chart.Name, w.Name)
				assert.Equal(t, w.Chart.Version, got.Chart.Version, w.Name)
				assert.Equal(t, w.ContentDigest, got.ContentDigest, w.Name)
				assert.Equal(t, jsonRoundTrip(t, w.Values), jsonRoundTrip(t, got.Values), w.Name)
				digest, err := domain.Digest(got.Values)
				require.NoError(t, err)
				assert.Equal(t, w.ValuesDigest, digest, w.Name)
			}
		})
	}
}

func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

func TestReadDir_KeepsExplicitNulls(t *testing.T) {
	t.Parallel()
	b, err := aicr.ReadDir(filepath.Join(fixtures, v1Fixtures[0], "bundle-helm"))
	require.NoError(t, err)
	for _, r := range b.Releases {
		if r.Name != "kube-prometheus-stack" {
			continue
		}
		spec := r.Values["prometheus"].(map[string]any)["prometheusSpec"].(map[string]any)
		storage := spec["storageSpec"].(map[string]any)
		v, ok := storage["emptyDir"]
		assert.True(t, ok, "explicit null must survive the merge")
		assert.Nil(t, v)
		return
	}
	t.Fatal("kube-prometheus-stack not found")
}

func TestReadDir_ClusterValuesOverride(t *testing.T) {
	t.Parallel()
	b, err := aicr.ReadDir(filepath.Join(fixtures, v1Fixtures[0], "bundle-helm"))
	require.NoError(t, err)
	gpu := b.Releases[8]
	require.Equal(t, "gpu-operator", gpu.Name)
	driver := gpu.Values["driver"].(map[string]any)
	assert.Equal(t, "580.105.08", driver["version"], "cluster-values.yaml is merged in")
	assert.Equal(t, true, driver["useOpenKernelModules"], "values.yaml keys are kept")
	assert.Equal(t, []string{"cert-manager", "kube-prometheus-stack", "nodewright-customizations"}, gpu.DependsOnComponents)
}

func TestReadDir_LegacyBundlesAreReported(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{
		"eks-h100-ubuntu-training-kubeflow",
		"gke-h100-cos-training-kubeflow",
		"eks-h100-ubuntu-inference-dynamo",
		"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow",
		"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow",
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			b, err := aicr.ReadDir(filepath.Join(fixtures, dir, "bundle-helm"))
			require.NoError(t, err)
			assert.Equal(t, ports.LayoutLegacyV0, b.Layout)
			assert.Regexp(t, `^v?0\.`, b.AICRVersion)
			assert.Empty(t, b.Releases)
		})
	}
}
