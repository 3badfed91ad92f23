package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSpec is an image spec over tiny fake binaries, one per platform.
func fakeSpec() imageSpec {
	return imageSpec{
		binaries: []platformBinary{
			{platform: v1.Platform{OS: "linux", Architecture: "amd64"}, binary: []byte("amd64 binary")},
			{platform: v1.Platform{OS: "linux", Architecture: "arm64"}, binary: []byte("arm64 binary")},
		},
		source:   "https://github.com/NVIDIA/aicr",
		version:  "v0.1.0",
		revision: "0123456789abcdef",
		created:  time.Unix(1767225600, 0).UTC(),
	}
}

// TestIndexReproducible: the same inputs give the same index digest, also through a layout
// written twice; another commit time gives another digest.
func TestIndexReproducible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var digests []v1.Hash
	for range 2 {
		idx, err := buildIndex(fakeSpec())
		require.NoError(t, err)
		d, err := writeLayout(filepath.Join(dir, "image"), idx, "v0.1.0")
		require.NoError(t, err)
		digests = append(digests, d)
	}
	assert.Equal(t, digests[0], digests[1])

	p, err := layout.FromPath(filepath.Join(dir, "image"))
	require.NoError(t, err)
	top, err := p.ImageIndex()
	require.NoError(t, err)
	im, err := top.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1, "index.json holds only this build")
	assert.Equal(t, digests[0], im.Manifests[0].Digest)
	assert.Equal(t, "v0.1.0", im.Manifests[0].Annotations[refName])

	later := fakeSpec()
	later.created = later.created.Add(time.Second)
	idx, err := buildIndex(later)
	require.NoError(t, err)
	d, err := idx.Digest()
	require.NoError(t, err)
	assert.NotEqual(t, digests[0], d)
}

// TestIndexImages: both platforms are in the OCI index, each image's config has the nonroot
// user, the entrypoint, the OCI labels and the created time of SOURCE_DATE_EPOCH, and its one
// layer holds the binary at /aicr-operator with mode 0755.
func TestIndexImages(t *testing.T) {
	t.Parallel()
	s := fakeSpec()
	idx, err := buildIndex(s)
	require.NoError(t, err)
	mt, err := idx.MediaType()
	require.NoError(t, err)
	assert.Equal(t, types.OCIImageIndex, mt)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 2)
	for i, desc := range im.Manifests {
		want := s.binaries[i]
		require.NotNil(t, desc.Platform)
		assert.Equal(t, want.platform.String(), desc.Platform.String())
		assert.Equal(t, types.OCIManifestSchema1, desc.MediaType)
		img, err := idx.Image(desc.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, "65532:65532", cf.Config.User)
		assert.Equal(t, []string{"/aicr-operator"}, cf.Config.Entrypoint)
		assert.Equal(t, map[string]string{
			labelSource: s.source, labelVersion: s.version, labelRevision: s.revision,
			labelCreated: "2026-01-01T00:00:00Z",
		}, cf.Config.Labels)
		assert.True(t, s.created.Equal(cf.Created.Time), "created %s", cf.Created.Time)
		assert.Equal(t, want.platform.Architecture, cf.Architecture)
		for _, h := range cf.History {
			assert.True(t, s.created.Equal(h.Created.Time))
		}
		files := layerEntries(t, img)
		bin, ok := files["aicr-operator"]
		require.True(t, ok, "the layer holds /aicr-operator")
		assert.Equal(t, int64(0o755), bin.mode)
		assert.Equal(t, want.binary, bin.body)
		assert.Contains(t, string(files["etc/passwd"].body), "nonroot:x:65532:65532:")
	}
}

// entry is a tar entry's mode and content.
type entry struct {
	mode int64
	body []byte
}

// layerEntries reads the single layer of img, checking every entry's time and owner.
func layerEntries(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer func() { _ = rc.Close() }()
	out := map[string]entry{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		assert.True(t, fakeSpec().created.Equal(hdr.ModTime), hdr.Name)
		assert.Zero(t, hdr.Uid, hdr.Name)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		out[hdr.Name] = entry{mode: hdr.Mode, body: body}
	}
}

// TestLoadSpec: SOURCE_DATE_EPOCH and os/arch=path flags are required.
func TestLoadSpec(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "aicr-operator")
	require.NoError(t, os.WriteFile(bin, []byte("x"), 0o600))
	t.Setenv("SOURCE_DATE_EPOCH", "")
	_, err := loadSpec([]string{"linux/amd64=" + bin}, "")
	require.Error(t, err)

	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	_, err = loadSpec([]string{bin}, "")
	require.Error(t, err)
	s, err := loadSpec([]string{"linux/arm64=" + bin}, "")
	require.NoError(t, err)
	assert.Equal(t, "linux/arm64", s.binaries[0].platform.String())
	assert.Equal(t, "2026-01-01T00:00:00Z", s.created.Format(time.RFC3339))
}
