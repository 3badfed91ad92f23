// Package aicroci plays `aicr bundle -o oci://<registry>/<repository>:<tag>` for tests
// (docs/design/aicr-cli.md section 7): the bundle directory packed as one deterministic gzip tar
// layer (media type application/vnd.oci.image.layer.v1.tar+gzip, annotated for oras to
// unpack it), an image manifest of artifact type application/vnd.nvidia.aicr.artifact
// with an empty config and the fixed creation time, pushed with oras-go and tagged.
// Artifacts of another shape are built the same way, to test that a reader refuses them.
package aicroci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// What AICR writes (docs/design/aicr-cli.md section 7).
const (
	// ArtifactType is the artifact type of an AICR bundle.
	ArtifactType = "application/vnd.nvidia.aicr.artifact"
	// AnnotationUnpack tells oras pull to unpack a tar layer into a directory.
	AnnotationUnpack = "io.deis.oras.content.unpack"
	// AnnotationTarDigest is the digest of the uncompressed tar (oras verifies it when unpacking).
	AnnotationTarDigest = "io.deis.oras.content.digest"
	// Created is AICR's reproducible creation time.
	Created = "1970-01-01T00:00:00Z"
	// LayerTitle names the layer for oras pull: "." unpacks the tree into the -o directory.
	LayerTitle = "."
)

// Layer is one layer of an artifact.
type Layer struct {
	MediaType   string
	Data        []byte
	Annotations map[string]string
	// ClaimedSize, when set, is the size the manifest claims instead of len(Data); the
	// blob is then not pushed (a manifest lying about its layer).
	ClaimedSize int64
}

// Artifact is an image manifest with its layers.
type Artifact struct {
	ArtifactType string
	Layers       []Layer
}

// Bundle is the artifact AICR pushes for a bundle whose files are keyed by slash path.
func Bundle(files map[string][]byte) (Artifact, error) {
	archive, tarDigest, err := Pack(files)
	if err != nil {
		return Artifact{}, err
	}
	return Artifact{ArtifactType: ArtifactType, Layers: []Layer{{
		MediaType: ocispec.MediaTypeImageLayerGzip, Data: archive,
		Annotations: map[string]string{ocispec.AnnotationTitle: LayerTitle, AnnotationUnpack: "true", AnnotationTarDigest: tarDigest},
	}}}, nil
}

// Pack archives files as AICR does: sorted, each parent directory once before its files,
// gzip without a modification time. It returns the archive and the digest of the tar.
func Pack(files map[string][]byte) ([]byte, string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, "", err
	}
	td := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(zw, td))
	dirs := map[string]bool{}
	for _, n := range names {
		for _, d := range parents(n) {
			if !dirs[d] {
				dirs[d] = true
				if err := tw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
					return nil, "", err
				}
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), "sha256:" + hex.EncodeToString(td.Sum(nil)), nil
}

// parents returns the parent directories of a slash path, outermost first.
func parents(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}

// Repository opens ref (host/repository) over plain HTTP or HTTPS with cred (auth.EmptyCredential:
// anonymous) and the default HTTP client, as AICR does with its docker config credential.
func Repository(ref string, plainHTTP bool, cred auth.Credential) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref)
	if err != nil {
		return nil, fmt.Errorf("parse %q: %w", ref, err)
	}
	repo.PlainHTTP = plainHTTP
	repo.Client = &auth.Client{Client: http.DefaultClient, Cache: auth.NewCache(), Credential: auth.StaticCredential(repo.Reference.Registry, cred)}
	return repo, nil
}

// Push pushes the config, the layers and the manifest of a, tags it and returns the
// manifest's descriptor.
func (a Artifact) Push(ctx context.Context, repo *remote.Repository, tag string) (ocispec.Descriptor, error) {
	config := content.NewDescriptorFromBytes(ocispec.MediaTypeEmptyJSON, ocispec.DescriptorEmptyJSON.Data)
	if err := pushBlob(ctx, repo, config, ocispec.DescriptorEmptyJSON.Data); err != nil {
		return ocispec.Descriptor{}, err
	}
	m := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest, ArtifactType: a.ArtifactType, Config: config,
		Annotations: map[string]string{ocispec.AnnotationCreated: Created},
	}
	m.SchemaVersion = 2
	for _, l := range a.Layers {
		d := content.NewDescriptorFromBytes(l.MediaType, l.Data)
		d.Annotations = l.Annotations
		if l.ClaimedSize != 0 {
			d.Size = l.ClaimedSize
		} else if err := pushBlob(ctx, repo, d, l.Data); err != nil {
			return ocispec.Descriptor{}, err
		}
		m.Layers = append(m.Layers, d)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw)
	if err := repo.PushReference(ctx, desc, bytes.NewReader(raw), tag); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push manifest %s:%s: %w", repo.Reference.Repository, tag, err)
	}
	return desc, nil
}

func pushBlob(ctx context.Context, repo *remote.Repository, d ocispec.Descriptor, data []byte) error {
	if ok, err := repo.Exists(ctx, d); err != nil || ok {
		return err
	}
	if err := repo.Push(ctx, d, bytes.NewReader(data)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return fmt.Errorf("push blob %s: %w", d.Digest, err)
	}
	return nil
}
