package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonroot is the user and group the image runs as (distroless' nonroot, the chart's
// runAsUser and runAsGroup).
const nonroot = 65532

// passwd and group name the nonroot user, so tools that look the user up find it.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:65532:\n"
)

// file is one regular file of the layer.
type file struct {
	name string
	mode int64
	body []byte
}

// layerFiles lists the files of the operator layer: the binary at /aicr-operator, the nonroot
// user and, when caBundle is not empty, the CA certificates at /etc/ssl/certs.
func layerFiles(binary, caBundle []byte) []file {
	files := []file{
		{name: "aicr-operator", mode: 0o755, body: binary},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
	}
	if len(caBundle) > 0 {
		files = append(files, file{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, body: caBundle})
	}
	return files
}

// buildLayer writes files into a tar with every header fixed (owner root, mtime created) and
// returns it as a gzip-compressed OCI layer; the same inputs give the same digest.
func buildLayer(files []file, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		if err := writeParents(tw, f.name, created, dirs); err != nil {
			return nil, err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.body)),
			ModTime: created, Format: tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("write tar header %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, fmt.Errorf("write tar body %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close tar: %w", err)
	}
	raw := buf.Bytes()
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	layer, err := tarball.LayerFromOpener(opener, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("build layer: %w", err)
	}
	return layer, nil
}

// writeParents writes a directory entry for every parent of name not written yet.
func writeParents(tw *tar.Writer, name string, created time.Time, done map[string]bool) error {
	for i := range len(name) {
		if name[i] != '/' || done[name[:i+1]] {
			continue
		}
		dir := name[:i+1]
		done[dir] = true
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: created, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("write tar header %s: %w", dir, err)
		}
	}
	return nil
}
