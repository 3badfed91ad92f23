package chartref_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/chartref"
	"github.com/NVIDIA/aicr/ports"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestFor_UpstreamFromChartsLocalFromWrappers(t *testing.T) {
	t.Parallel()
	up, err := chartref.For("oci://registry.example.com/aicr/", ports.ReleaseSpec{
		Ref:   ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"},
		Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1", ManifestDigest: digest},
	})
	require.NoError(t, err)
	assert.Equal(t, chartref.Source{
		ReleaseID: "gpu-operator", RepoURL: "oci://registry.example.com/aicr/charts/gpu-operator",
		Repository: "registry.example.com/aicr/charts/gpu-operator", Chart: "gpu-operator", Version: "v25.10.1", TargetRevision: digest,
	}, up)
	assert.Equal(t, "registry.example.com/aicr/charts/gpu-operator@"+digest, up.Repository+"@"+up.TargetRevision)

	local, err := chartref.For("registry.example.com/aicr", ports.ReleaseSpec{
		Ref:   ports.ReleaseRef{ID: "gpu-operator-post", Namespace: "gpu-operator"},
		Chart: ports.ChartSource{Name: "gpu-operator-post", Version: "1.1.0", ManifestDigest: digest},
	})
	require.NoError(t, err)
	assert.Equal(t, "registry.example.com/aicr/wrappers/gpu-operator-post@"+digest, local.Repository+"@"+local.TargetRevision)
}

func TestFor_UnpinnedChartsAreRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]ports.ChartSource{
		"no digest":         {Repository: "https://charts.jetstack.io", Name: "cert-manager", Version: "v1.17.2"},
		"a tag, not digest": {Repository: "https://charts.jetstack.io", Name: "cert-manager", Version: "v1.17.2", ManifestDigest: "v1.17.2"},
		"a path as name":    {Repository: "oci://ghcr.io", Name: "../x", Version: "1", ManifestDigest: digest},
	} {
		_, err := chartref.For("registry.example.com/aicr", ports.ReleaseSpec{Chart: c})
		assert.ErrorIs(t, err, chartref.ErrUnpinned, name)
	}
}
