package oci_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
	helmregistry "helm.sh/helm/v3/pkg/registry"

	"github.com/NVIDIA/aicr/ports"
)

// TestPinnedCharts_HelmPullsThemByDigest proves the charts the adapter writes
// are Helm OCI charts: Helm's own registry client pulls the mirrored and the
// wrapper chart by manifest digest and loads them.
func TestPinnedCharts_HelmPullsThemByDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, up := newRegistry(t)
	up.addHTTPChart("https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v25.10.1", chartArchive(t, "gpu-operator", "v25.10.1", "a"), "")
	mirrored, err := reg.MirrorChart(ctx, ports.UpstreamChart{
		Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1"},
	})
	require.NoError(t, err)
	local, err := fs.Sub(os.DirFS(fixtureBundle), "010-gpu-operator-post")
	require.NoError(t, err)
	wrapper, err := reg.PushWrapper(ctx, local)
	require.NoError(t, err)

	hc, err := helmregistry.NewClient(helmregistry.ClientOptPlainHTTP(), helmregistry.ClientOptWriter(io.Discard))
	require.NoError(t, err)
	for _, pc := range []ports.PinnedChart{mirrored, wrapper} {
		res, perr := hc.Pull(pc.Reference())
		require.NoError(t, perr, pc.Reference())
		assert.Equal(t, string(pc.ManifestDigest), res.Manifest.Digest)
		assert.Equal(t, string(pc.ArchiveDigest), res.Chart.Digest)
		assert.Equal(t, pc.Name, res.Chart.Meta.Name)
		assert.Equal(t, pc.Version, res.Chart.Meta.Version)
		ch, lerr := loader.LoadArchive(bytes.NewReader(res.Chart.Data))
		require.NoError(t, lerr, pc.Reference())
		assert.NotEmpty(t, ch.Templates, pc.Reference())
	}
}
