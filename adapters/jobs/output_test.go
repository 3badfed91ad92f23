package jobs_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/adapters/jobs"
)

func archive(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		body := []byte("x: 1\n")
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		require.NoError(t, tw.WriteHeader(&h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write(body)
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestUntar_ReadsATree(t *testing.T) {
	t.Parallel()
	fsys, err := jobs.Untar(archive(t,
		tar.Header{Name: "./", Typeflag: tar.TypeDir},
		tar.Header{Name: "./001-a/", Typeflag: tar.TypeDir},
		tar.Header{Name: "./001-a/values.yaml", Typeflag: tar.TypeReg},
		tar.Header{Name: "bundle-info.yaml", Typeflag: tar.TypeReg},
	), 1<<20)
	require.NoError(t, err)
	data, err := fs.ReadFile(fsys, "001-a/values.yaml")
	require.NoError(t, err)
	assert.Equal(t, "x: 1\n", string(data))
	entries, err := fs.ReadDir(fsys, ".")
	require.NoError(t, err)
	assert.Len(t, entries, 2)
}

func TestUntar_Rejects(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]tar.Header{
		"parent escape": {Name: "../etc/passwd", Typeflag: tar.TypeReg},
		"inner escape":  {Name: "001-a/../../x", Typeflag: tar.TypeReg},
		"absolute":      {Name: "/etc/passwd", Typeflag: tar.TypeReg},
		"symlink":       {Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		"hard link":     {Name: "link", Typeflag: tar.TypeLink, Linkname: "x"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := jobs.Untar(archive(t, h), 1<<20)
			require.ErrorIs(t, err, jobs.ErrBadArchive)
		})
	}
}

func TestUntar_BoundsTheSize(t *testing.T) {
	t.Parallel()
	_, err := jobs.Untar(archive(t, tar.Header{Name: "a", Typeflag: tar.TypeReg}), 3)
	require.ErrorIs(t, err, jobs.ErrBadArchive)
	_, err = jobs.Untar([]byte("not gzip"), 3)
	require.ErrorIs(t, err, jobs.ErrBadArchive)
}

func TestNew_RefusesAnImageWithoutDigest(t *testing.T) {
	t.Parallel()
	cfg := jobs.Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system"}
	for _, img := range []string{"ghcr.io/nvidia/aicr:v1.1.0", "ghcr.io/nvidia/aicr@sha256:abc", ""} {
		cfg.Image = img
		_, err := jobs.New(cfg, nil, nil)
		require.ErrorIs(t, err, jobs.ErrImageNotPinned, img)
	}
	cfg.Image = "ghcr.io/nvidia/aicr:v1.1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	_, err := jobs.New(cfg, nil, nil)
	require.NoError(t, err)
}
