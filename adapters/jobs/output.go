package jobs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/ports"
)

// MaxBundleBytes bounds the unpacked size of a bundle archive.
const MaxBundleBytes = 64 << 20

// ErrBadArchive reports a bundle archive that is not a plain tree of regular
// files inside the bundle directory.
var ErrBadArchive = errors.New("bad bundle archive")

// Output returns the files of a succeeded Job: the output ConfigMap's data
// keys as files (snapshot.yaml), or for a bundle the unpacked bundle.tar.gz.
func (r *Runner) Output(ctx context.Context, ref ports.JobRef) (fs.FS, error) {
	st, err := r.Status(ctx, ref)
	if err != nil {
		return nil, err
	}
	if st.State != ports.JobSucceeded {
		return nil, fmt.Errorf("job %s has not succeeded: %w", ref.Name, ports.ErrJobNotFound)
	}
	cm := &corev1.ConfigMap{}
	err = r.reader.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: OutputName(ref.Name)}, cm)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("output of job %s: %w", ref.Name, ports.ErrJobNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get output of job %s: %w", ref.Name, err)
	}
	if archive, ok := cm.BinaryData[BundleKey]; ok {
		return Untar(archive, MaxBundleBytes)
	}
	files := fstest.MapFS{}
	for k, v := range cm.Data {
		files[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o444}
	}
	for k, v := range cm.BinaryData {
		files[k] = &fstest.MapFile{Data: v, Mode: 0o444}
	}
	return files, nil
}

// Untar unpacks a gzip tar archive into an in-memory file system. It accepts
// only directories and regular files with clean relative paths and stops at
// limit bytes of content.
func Untar(archive []byte, limit int64) (fs.FS, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
	}
	tr := tar.NewReader(zr)
	files := fstest.MapFS{}
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		name = strings.TrimSuffix(name, "/")
		if name == "" || name == "." {
			continue
		}
		if path.Clean(name) != name || !fs.ValidPath(name) {
			return nil, fmt.Errorf("%w: path %q escapes the bundle", ErrBadArchive, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			files[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
		case tar.TypeReg:
			total += h.Size
			if total > limit {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrBadArchive, limit)
			}
			data, err := io.ReadAll(io.LimitReader(tr, h.Size))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadArchive, err)
			}
			files[name] = &fstest.MapFile{Data: data, Mode: 0o444}
		default:
			return nil, fmt.Errorf("%w: %q is not a regular file or directory", ErrBadArchive, h.Name)
		}
	}
}
