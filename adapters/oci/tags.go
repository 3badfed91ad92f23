package oci

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/NVIDIA/aicr/ports"
)

// maxTagLength is the longest tag the OCI distribution spec allows.
const maxTagLength = 128

// tagUnsafe matches the characters a tag cannot hold.
var tagUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)

// pushContentTagged pushes a tagged <name>-<hex of its manifest digest>
// (name made tag-safe and shortened to fit): a tag names one content, so a
// later push never moves it and an earlier artifact never loses its tag to a
// reused name (registries may garbage-collect untagged manifests). A tag that
// already holds a's manifest is reused without a push; one that holds another
// manifest was not written by the adapter and is refused with
// ports.ErrForeignObject, never overwritten.
func pushContentTagged(ctx context.Context, repo *remote.Repository, a artifact, name string) (ocispec.Descriptor, error) {
	_, desc, err := a.manifest()
	if err != nil {
		return desc, err
	}
	sum := desc.Digest.Encoded()
	name = tagUnsafe.ReplaceAllString(name, "_")
	tag := name[:min(len(name), maxTagLength-1-len(sum))] + "-" + sum
	held, err := repo.Resolve(ctx, tag)
	switch {
	case err == nil && held.Digest == desc.Digest:
		return desc, nil
	case err == nil:
		return ocispec.Descriptor{}, fmt.Errorf("tag %s holds %s, not %s: %w", tag, held.Digest, desc.Digest, ports.ErrForeignObject)
	}
	if err = mapErr("resolve tag "+tag, err); !errors.Is(err, ports.ErrArtifactNotFound) {
		return ocispec.Descriptor{}, err
	}
	return a.push(ctx, repo, tag)
}
