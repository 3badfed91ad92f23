package jobexec_test

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

const recorded = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"

// TestAddSyntheticReleases: the recorded render grown to 128 releases reads as AICR's bundle
// reader reads a render: the recorded releases first, as they were, then the synthetic
// upstream releases in order, each with a chart of its own; checksums.txt matches every file.
func TestAddSyntheticReleases(t *testing.T) {
	files, err := jobexec.ReadTree(path.Join(jobexec.Root(), "test", "testdata", "aicr", recorded))
	require.NoError(t, err)
	before, err := readBundle(files)
	require.NoError(t, err)

	require.NoError(t, jobexec.AddSyntheticReleases(files, 128, "gpu-operator"))
	grown, err := readBundle(files)
	require.NoError(t, err)
	require.Len(t, grown.Releases, 128)
	assert.Equal(t, before.Releases, grown.Releases[:len(before.Releases)], "the recorded releases are kept")
	charts := map[string]bool{}
	for i, rel := range grown.Releases[len(before.Releases):] {
		assert.Equal(t, len(before.Releases)+i+1, rel.Order)
		assert.Equal(t, ports.KindUpstream, rel.Kind)
		assert.Equal(t, "gpu-operator", rel.Namespace)
		charts[rel.Chart.Name] = true
	}
	assert.Len(t, charts, 128-len(before.Releases), "every synthetic release has a chart of its own")

	lines := strings.Split(strings.TrimSpace(string(files["checksums.txt"])), "\n")
	listed := map[string]bool{}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, line)
		listed[name] = true
		if data, ok := files[name]; ok {
			digest := sha256.Sum256(data)
			assert.Equal(t, hex.EncodeToString(digest[:]), sum, name)
		}
	}
	for name := range files {
		assert.True(t, listed[name] || name == "checksums.txt", "checksums.txt lists %s", name)
	}

	again := len(files)
	require.NoError(t, jobexec.AddSyntheticReleases(files, 64, "gpu-operator"))
	assert.Len(t, files, again, "a bundle already that large is left as it is")
}

// TestAddSyntheticReleasesRefusesABundleWithoutReleases: without layout.releases there is
// nothing to grow.
func TestAddSyntheticReleasesRefusesABundleWithoutReleases(t *testing.T) {
	err := jobexec.AddSyntheticReleases(map[string][]byte{"bundle-info.yaml": []byte("apiVersion: aicr.run/v1\n")}, 128, "gpu-operator")
	require.ErrorContains(t, err, "lists no layout.releases")
}

// readBundle reads bundle files as the operator reads a bundle Job's archive.
func readBundle(files map[string][]byte) (ports.Bundle, error) {
	archive, err := jobexec.Tar(files)
	if err != nil {
		return ports.Bundle{}, err
	}
	fsys, err := bundletar.Untar(archive, bundletar.MaxBundleBytes)
	if err != nil {
		return ports.Bundle{}, err
	}
	return aicr.ReadBundle(fsys)
}
