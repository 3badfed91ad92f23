package ports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func TestParseSourcePrefix_CanonicalForm(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://helm.ngc.nvidia.com/nvidia":      "https://helm.ngc.nvidia.com/nvidia",
		"https://Helm.NGC.nvidia.com:443/nvidia/": "https://helm.ngc.nvidia.com/nvidia",
		"oci://nvcr.io": "oci://nvcr.io",
		"oci://registry.example.com:5000/team/x/":  "oci://registry.example.com:5000/team/x",
		"https://[::1]:8443/charts":                "https://[::1]:8443/charts",
		"https://charts.example.com//nested//path": "https://charts.example.com/nested/path",
	} {
		p, err := ports.ParseSourcePrefix(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, p.String(), in)
	}
}

func TestParseSourcePrefix_RefusesAnythingButAnHTTPSOrOCIPrefix(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "helm.ngc.nvidia.com/nvidia", "http://charts.example.com", "ftp://charts.example.com",
		"https://", "https:///nvidia", "https:charts.example.com", "https://user:pass@charts.example.com",
		"https://charts.example.com/x?token=1", "https://charts.example.com/x?", "https://charts.example.com/x#frag",
		"https://charts.example.com/x#", "https://charts.example.com/x/../y", "oci://charts.example.com/./x",
	} {
		_, err := ports.ParseSourcePrefix(in)
		require.ErrorIs(t, err, ports.ErrInvalidSourcePrefix, in)
	}
}

func TestSourcePrefix_CoversWholeSegmentsOfTheSameSchemeAndHost(t *testing.T) {
	t.Parallel()
	p, err := ports.ParseSourcePrefix("https://a.example/x")
	require.NoError(t, err)
	for source, want := range map[string]bool{
		"https://a.example/x":         true,
		"https://a.example/x/":        true,
		"https://a.example/x/y":       true,
		"https://A.EXAMPLE:443/x/y":   true,
		"https://a.example/xy":        false,
		"https://a.example/":          false,
		"https://a.example/y/x":       false,
		"https://a.example.evil/x":    false,
		"https://evil.a.example/x":    false,
		"https://a.example:8443/x":    false,
		"oci://a.example/x":           false,
		"http://a.example/x":          false,
		"https://a.example/X":         false,
		"https://u:p@a.example/x/y":   false,
		"not a url at all: a.example": false,
	} {
		assert.Equal(t, want, p.Covers(source), source)
	}
}

func TestLongestSourcePrefix_TheMostSegmentsWin(t *testing.T) {
	t.Parallel()
	var prefixes []ports.SourcePrefix
	for _, s := range []string{"oci://nvcr.io", "oci://nvcr.io/nvidia/team", "oci://nvcr.io/nvidia", "https://nvcr.io/nvidia/team/x"} {
		p, err := ports.ParseSourcePrefix(s)
		require.NoError(t, err)
		prefixes = append(prefixes, p)
	}
	for source, want := range map[string]int{
		"oci://nvcr.io/nvidia/team/gpu-operator": 1,
		"oci://nvcr.io/nvidia/gpu-operator":      2,
		"oci://nvcr.io/nvidia":                   2,
		"oci://nvcr.io/other/gpu-operator":       0,
	} {
		i, ok := ports.LongestSourcePrefix(prefixes, source)
		require.True(t, ok, source)
		assert.Equal(t, want, i, source)
	}
	_, ok := ports.LongestSourcePrefix(prefixes, "oci://ghcr.io/nvidia/team")
	assert.False(t, ok, "no prefix covers another host")
}
