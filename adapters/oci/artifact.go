package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// fixedCreated is the creation annotation of every manifest the adapter
// writes: a constant keeps pushes reproducible (same input, same digest).
const fixedCreated = "1970-01-01T00:00:00Z"

// blob is content to push with its descriptor.
type blob struct {
	desc ocispec.Descriptor
	data []byte
}

func newBlob(mediaType string, data []byte, annotations map[string]string) blob {
	d := content.NewDescriptorFromBytes(mediaType, data)
	d.Annotations = annotations
	return blob{desc: d, data: data}
}

// pushBlob pushes b unless the repository has it.
func pushBlob(ctx context.Context, repo *remote.Repository, b blob) error {
	ok, err := repo.Exists(ctx, b.desc)
	if err != nil {
		return mapErr("check blob "+string(b.desc.Digest), err)
	}
	if ok {
		return nil
	}
	err = repo.Push(ctx, b.desc, bytes.NewReader(b.data))
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return mapErr("push blob "+string(b.desc.Digest), err)
	}
	return nil
}

// artifact is an image manifest to push: config, layers, annotations.
type artifact struct {
	artifactType string
	config       blob
	layers       []blob
	annotations  map[string]string
}

// push pushes the blobs and the manifest, tagged with tag, and returns the
// manifest descriptor.
func (a artifact) push(ctx context.Context, repo *remote.Repository, tag string) (ocispec.Descriptor, error) {
	raw, desc, err := a.manifest()
	if err != nil {
		return desc, err
	}
	for _, b := range append([]blob{a.config}, a.layers...) {
		if perr := pushBlob(ctx, repo, b); perr != nil {
			return ocispec.Descriptor{}, perr
		}
	}
	err = repo.PushReference(ctx, desc, bytes.NewReader(raw), tag)
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return ocispec.Descriptor{}, mapErr("push manifest to "+repo.Reference.String(), err)
	}
	return desc, nil
}

// manifest encodes a's manifest and returns it with its descriptor; the same
// artifact always encodes to the same bytes.
func (a artifact) manifest() ([]byte, ocispec.Descriptor, error) {
	ann := map[string]string{ocispec.AnnotationCreated: fixedCreated}
	for k, v := range a.annotations {
		ann[k] = v
	}
	m := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest, ArtifactType: a.artifactType,
		Config: a.config.desc, Annotations: ann,
	}
	m.SchemaVersion = 2
	for _, l := range a.layers {
		m.Layers = append(m.Layers, l.desc)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, ocispec.Descriptor{}, fmt.Errorf("encode manifest: %w", err)
	}
	return raw, content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw), nil
}

// fetchManifest fetches and decodes the manifest at reference (tag or digest)
// and returns it with its descriptor.
func fetchManifest(ctx context.Context, repo *remote.Repository, reference string) (ocispec.Descriptor, ocispec.Manifest, error) {
	var m ocispec.Manifest
	desc, rc, err := repo.FetchReference(ctx, reference)
	if err != nil {
		return desc, m, mapErr("fetch manifest "+repo.Reference.Registry+"/"+
			repo.Reference.Repository+"@"+reference, err)
	}
	defer func() { _ = rc.Close() }()
	raw, err := content.ReadAll(rc, desc)
	if err != nil {
		return desc, m, mapErr("read manifest "+reference, err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return desc, m, fmt.Errorf("decode manifest %s: %w", reference, err)
	}
	return desc, m, nil
}

// fetchBlob fetches a blob and verifies it against its descriptor.
func fetchBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor) ([]byte, error) {
	data, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return nil, mapErr("fetch blob "+string(desc.Digest), err)
	}
	return data, nil
}
