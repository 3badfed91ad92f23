package bundletar_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/bundletar"
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
	fsys, err := bundletar.Untar(archive(t,
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
			_, err := bundletar.Untar(archive(t, h), 1<<20)
			require.ErrorIs(t, err, bundletar.ErrBadArchive)
		})
	}
}

// dirs returns n directory entries named d<i>/ under prefix.
func dirs(prefix string, n int) []tar.Header {
	hs := make([]tar.Header, n)
	for i := range hs {
		hs[i] = tar.Header{Name: prefix + "d" + strconv.Itoa(i) + "/", Typeflag: tar.TypeDir}
	}
	return hs
}

func reg(name string) tar.Header { return tar.Header{Name: name, Typeflag: tar.TypeReg} }

func TestUntar_BoundsEntriesAndPaths(t *testing.T) {
	t.Parallel()
	deepest := strings.Repeat("d/", bundletar.MaxBundlePathDepth-1) + "f"
	longest := strings.Repeat("x", bundletar.MaxBundlePathBytes)
	for _, tc := range []struct {
		name    string
		entries []tar.Header
		ok      bool
	}{
		{"MaxBundleEntries entries", dirs("", bundletar.MaxBundleEntries), true},
		{"more than MaxBundleEntries entries", dirs("", bundletar.MaxBundleEntries+1), false},
		{"root entries count too", append(dirs("", bundletar.MaxBundleEntries), tar.Header{Name: "./", Typeflag: tar.TypeDir}), false},
		{"a path of MaxBundlePathDepth segments", []tar.Header{reg(deepest)}, true},
		{"a deeper path", []tar.Header{reg("d/" + deepest)}, false},
		{"a path of MaxBundlePathBytes bytes", []tar.Header{reg(longest)}, true},
		{"a longer path", []tar.Header{reg(longest + "x")}, false},
		{"a directory repeated", []tar.Header{{Name: "a/", Typeflag: tar.TypeDir}, reg("a/f"), {Name: "a/", Typeflag: tar.TypeDir}}, true},
		{"a file twice", []tar.Header{reg("a"), reg("a")}, false},
		{"a file under a file", []tar.Header{reg("a"), reg("a/b")}, false},
		{"a file where a folder was", []tar.Header{reg("a/b"), reg("a")}, false},
		{"a folder where a file was", []tar.Header{reg("a"), {Name: "a/", Typeflag: tar.TypeDir}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := bundletar.Untar(archive(t, tc.entries...), 1<<20)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, bundletar.ErrBadArchive)
		})
	}
}

func TestUntar_BoundsTheSize(t *testing.T) {
	t.Parallel()
	_, err := bundletar.Untar(archive(t, tar.Header{Name: "a", Typeflag: tar.TypeReg}), 3)
	require.ErrorIs(t, err, bundletar.ErrBadArchive)
	_, err = bundletar.Untar([]byte("not gzip"), 3)
	require.ErrorIs(t, err, bundletar.ErrBadArchive)
}
