package oci_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func TestMirrorChart_HTTPRepositoryIsPinnedByDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, up := newRegistry(t)
	archive := chartArchive(t, "gpu-operator", "v25.10.1", "a")
	up.addHTTPChart("https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v25.10.1", archive, "")

	src := ports.UpstreamChart{Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1"}}
	pc, err := reg.MirrorChart(ctx, src)
	require.NoError(t, err)

	assert.Equal(t, reg.Base()+"/charts/gpu-operator", pc.Repository)
	assert.Equal(t, ports.Digest("sha256:"+hexDigest(archive)), pc.ArchiveDigest, "the verified upstream archive digest is recorded")
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, string(pc.ManifestDigest))
	for _, ref := range []string{pc.Reference(), pc.Repository + ":v25.10.1"} {
		d, rerr := reg.Resolve(ctx, ref)
		require.NoError(t, rerr, ref)
		assert.Equal(t, pc.ManifestDigest, d, ref)
	}

	again, err := reg.MirrorChart(ctx, src)
	require.NoError(t, err)
	assert.Equal(t, pc, again, "mirroring is idempotent")
}

func TestMirrorChart_OCIUpstreamKeepsTheArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, up := newRegistry(t)
	archive := chartArchive(t, "kai-scheduler", "v0.13.0", "b")
	layer := up.addOCIChart(t, "ghcr.io/nvidia/kai-scheduler", "kai-scheduler", "v0.13.0", archive)

	pc, err := reg.MirrorChart(ctx, ports.UpstreamChart{
		Chart:                 ports.ChartSource{Repository: "oci://ghcr.io/nvidia/kai-scheduler", Name: "kai-scheduler", Version: "v0.13.0"},
		ExpectedArchiveDigest: ports.Digest(layer.Digest),
	})
	require.NoError(t, err)
	assert.Equal(t, ports.Digest(layer.Digest), pc.ArchiveDigest)
	assert.Equal(t, reg.Base()+"/charts/kai-scheduler", pc.Repository)
	d, err := reg.Resolve(ctx, pc.Reference())
	require.NoError(t, err)
	assert.Equal(t, pc.ManifestDigest, d)
}

func TestMirrorChart_TamperedUpstreamArchiveIsRefused(t *testing.T) {
	t.Parallel()
	const repoURL = "https://charts.jetstack.io"
	tests := []struct {
		name    string
		publish func(t *testing.T, up *upstream) ports.UpstreamChart
	}{
		{
			name: "the archive served differs from the index digest",
			publish: func(t *testing.T, up *upstream) ports.UpstreamChart {
				url := up.addHTTPChart(repoURL, "cert-manager", "v1.17.2", chartArchive(t, "cert-manager", "v1.17.2", "good"), "")
				up.tamper(url, chartArchive(t, "cert-manager", "v1.17.2", "evil"))
				return ports.UpstreamChart{Chart: ports.ChartSource{Repository: repoURL, Name: "cert-manager", Version: "v1.17.2"}}
			},
		},
		{
			name: "the archive differs from the digest the caller expects",
			publish: func(t *testing.T, up *upstream) ports.UpstreamChart {
				up.addHTTPChart(repoURL, "cert-manager", "v1.17.2", chartArchive(t, "cert-manager", "v1.17.2", "republished"), "")
				return ports.UpstreamChart{
					Chart:                 ports.ChartSource{Repository: repoURL, Name: "cert-manager", Version: "v1.17.2"},
					ExpectedArchiveDigest: ports.Digest("sha256:" + hexDigest(chartArchive(t, "cert-manager", "v1.17.2", "recorded"))),
				}
			},
		},
		{
			name: "the index announces no digest and the caller expects none",
			publish: func(t *testing.T, up *upstream) ports.UpstreamChart {
				up.addHTTPChart(repoURL, "cert-manager", "v1.17.2", chartArchive(t, "cert-manager", "v1.17.2", "x"), "-")
				return ports.UpstreamChart{Chart: ports.ChartSource{Repository: repoURL, Name: "cert-manager", Version: "v1.17.2"}}
			},
		},
		{
			name: "the archive holds another chart than the index says",
			publish: func(t *testing.T, up *upstream) ports.UpstreamChart {
				up.addHTTPChart(repoURL, "cert-manager", "v1.17.2", chartArchive(t, "cert-manager", "v9.9.9", "x"), "")
				return ports.UpstreamChart{Chart: ports.ChartSource{Repository: repoURL, Name: "cert-manager", Version: "v1.17.2"}}
			},
		},
		{
			name: "an OCI chart layer differs from its descriptor",
			publish: func(t *testing.T, up *upstream) ports.UpstreamChart {
				layer := up.addOCIChart(t, "ghcr.io/nvidia", "cert-manager", "v1.17.2", chartArchive(t, "cert-manager", "v1.17.2", "good"))
				up.tamper("https://ghcr.io/v2/nvidia/cert-manager/blobs/"+string(layer.Digest), chartArchive(t, "cert-manager", "v1.17.2", "evil"))
				return ports.UpstreamChart{Chart: ports.ChartSource{Repository: "oci://ghcr.io/nvidia", Name: "cert-manager", Version: "v1.17.2"}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			reg, up := newRegistry(t)
			_, err := reg.MirrorChart(ctx, tt.publish(t, up))
			require.ErrorIs(t, err, ports.ErrArchiveRejected)

			_, err = reg.Resolve(ctx, reg.Base()+"/charts/cert-manager:v1.17.2")
			assert.ErrorIs(t, err, ports.ErrArtifactNotFound, "nothing is pushed")
		})
	}
}

func TestMirrorChart_MissingUpstreamVersionIsArtifactNotFound(t *testing.T) {
	t.Parallel()
	reg, up := newRegistry(t)
	up.addHTTPChart("https://charts.jetstack.io", "cert-manager", "v1.0.0", chartArchive(t, "cert-manager", "v1.0.0", "x"), "")
	_, err := reg.MirrorChart(context.Background(), ports.UpstreamChart{
		Chart: ports.ChartSource{Repository: "https://charts.jetstack.io", Name: "cert-manager", Version: "v1.17.2"},
	})
	require.ErrorIs(t, err, ports.ErrArtifactNotFound)
}

func TestResolve_MissingReferenceIsArtifactNotFound(t *testing.T) {
	t.Parallel()
	reg, _ := newRegistry(t)
	for _, ref := range []string{
		reg.Base() + "/charts/none:1.0.0",
		reg.Base() + "/charts/none@sha256:" + hexDigest([]byte("none")),
	} {
		_, err := reg.Resolve(context.Background(), ref)
		assert.ErrorIs(t, err, ports.ErrArtifactNotFound, ref)
	}
}
