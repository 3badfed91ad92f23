package network

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordedRender is the recorded AICR render the synthetic ones grow from (15 releases).
const recordedRender = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"

// TestSyntheticRenderNamesTheChartsTheServerServes: the grown render's added releases name the
// server's copy of their repository, whose index lists each added chart with an archive.
func TestSyntheticRenderNamesTheChartsTheServerServes(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	require.NoError(t, srv.AddSyntheticCharts("1.1.0", recordedRender, 20, "gpu-operator"))
	fixture, err := SyntheticFixture("1.1.0", recordedRender, 20, "gpu-operator", srv.URL())
	require.NoError(t, err)
	files, err := fixture.BundleFiles()
	require.NoError(t, err)
	repo := srv.URL() + "/upstream/charts.example.com/synthetic"
	assert.Equal(t, "CHART='synthetic-020'\nREPO='"+repo+"'\nVERSION='1.0.0'\n", string(files["020-synthetic-020/upstream.env"]))

	get := func(url string) string {
		resp, err := srv.Client().Get(url)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		require.Equal(t, 200, resp.StatusCode, url)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(body)
	}
	index := get(repo + "/index.yaml")
	for _, chart := range []string{"synthetic-016", "synthetic-020"} {
		assert.Contains(t, index, "name: "+chart)
	}
	assert.NotEmpty(t, get(repo+"/synthetic-020-1.0.0.tgz"))
}

// TestAddSyntheticChartsRefusesARenderLargerThanAsked: a render already larger than the total
// is not grown, and serving its charts for the smaller total is an error.
func TestAddSyntheticChartsRefusesARenderLargerThanAsked(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	assert.ErrorContains(t, srv.AddSyntheticCharts("1.1.0", recordedRender, 5, "gpu-operator"), "want 5")
}
