// Package bundletar unpacks an AICR bundle archive (a gzip tar of the bundle directory) into an
// in-memory file system, refusing anything but a plain, bounded tree of regular files. The Job
// runner reads a bundle Job's output and the registry a pushed bundle with it, so both see the
// same tree. It imports only the standard library.
package bundletar

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
)

// MaxBundleBytes bounds the unpacked size of a bundle archive.
const MaxBundleBytes = 64 << 20

// ErrBadArchive reports a bundle archive that is not a plain tree of regular
// files inside the bundle directory.
var ErrBadArchive = errors.New("bad bundle archive")

// Bounds of a bundle archive besides its size (MaxBundleBytes). An AICR bundle
// holds tens of releases and a few hundred files a few folders deep; the bounds
// are far above that and keep a hostile archive from exhausting memory or time
// with empty entries or long paths.
const (
	// MaxBundleEntries bounds the entries of a bundle archive: files,
	// directories and root entries ("./") alike.
	MaxBundleEntries = 10_000
	// MaxBundlePathDepth bounds the folders-and-file segments of a path.
	MaxBundlePathDepth = 32
	// MaxBundlePathBytes bounds the length of a path.
	MaxBundlePathBytes = 1024
)

// Untar unpacks a gzip tar archive into an in-memory file system. It accepts
// only directories and regular files with clean relative paths of at most
// MaxBundlePathDepth segments and MaxBundlePathBytes bytes, at most
// MaxBundleEntries entries, no entry twice and none under a file, and stops at
// limit bytes of content.
func Untar(archive []byte, limit int64) (fs.FS, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
	}
	tr := tar.NewReader(zr)
	files := fstest.MapFS{}
	var total int64
	for n := 1; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
		}
		if n > MaxBundleEntries {
			return nil, fmt.Errorf("%w: more than %d entries", ErrBadArchive, MaxBundleEntries)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
		if name == "" || name == "." {
			continue
		}
		if err := checkPath(name, h.Name); err != nil {
			return nil, err
		}
		f := &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		switch h.Typeflag {
		case tar.TypeDir:
		case tar.TypeReg:
			if total += h.Size; total > limit {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrBadArchive, limit)
			}
			data, err := io.ReadAll(io.LimitReader(tr, h.Size))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
			}
			f = &fstest.MapFile{Data: data, Mode: 0o444}
		default:
			return nil, fmt.Errorf("%w: %q is not a regular file or directory", ErrBadArchive, h.Name)
		}
		if err := add(files, name, f); err != nil {
			return nil, err
		}
	}
}

// checkPath refuses a path that is not clean and relative or that exceeds
// MaxBundlePathDepth or MaxBundlePathBytes; raw is the name as archived.
func checkPath(name, raw string) error {
	switch {
	case path.Clean(name) != name || !fs.ValidPath(name):
		return fmt.Errorf("%w: path %q escapes the bundle", ErrBadArchive, raw)
	case len(name) > MaxBundlePathBytes:
		return fmt.Errorf("%w: path of %d bytes (at most %d)", ErrBadArchive, len(name), MaxBundlePathBytes)
	case strings.Count(name, "/") >= MaxBundlePathDepth:
		return fmt.Errorf("%w: path %q deeper than %d", ErrBadArchive, raw, MaxBundlePathDepth)
	}
	return nil
}

// add records f at name and its parents as directories. It refuses an entry
// that replaces an earlier one (a directory may repeat) or lies under a file,
// so every reader of the archive sees the same tree.
func add(files fstest.MapFS, name string, f *fstest.MapFile) error {
	if old, ok := files[name]; ok && (!old.Mode.IsDir() || !f.Mode.IsDir()) {
		return fmt.Errorf("%w: %q appears twice", ErrBadArchive, name)
	}
	for p := path.Dir(name); p != "."; p = path.Dir(p) {
		old, ok := files[p]
		if ok && !old.Mode.IsDir() {
			return fmt.Errorf("%w: %q lies under the file %q", ErrBadArchive, name, p)
		}
		if !ok {
			files[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		}
	}
	files[name] = f
	return nil
}
