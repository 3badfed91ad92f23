package oci

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/ports"
)

// Bundle artifact format: what `aicr bundle -o oci://<registry>/bundles/cluster:<tag>`
// pushes (docs/design/aicr-cli.md section 7): an image manifest of artifact type BundleArtifactType
// with exactly one gzip tar layer holding the bundle directory, so `oras pull
// <registry>/bundles/cluster@<digest> -o dir` recreates the tree.
const (
	// BundleArtifactType is the artifact type of an AICR bundle.
	BundleArtifactType = "application/vnd.nvidia.aicr.artifact"
	// BundleLayerMediaType is the media type of the bundle's one layer.
	BundleLayerMediaType = ocispec.MediaTypeImageLayerGzip
	// MaxBundleLayerBytes bounds the compressed size of a bundle's layer; the
	// unpacked tree is bounded by bundletar.MaxBundleBytes.
	MaxBundleLayerBytes = bundletar.MaxBundleBytes
)

// PullBundle fetches the manifest under digest from <registry>/bundles/cluster
// (verified against digest), checks it is AICR's bundle artifact with exactly
// one gzip tar layer of at most MaxBundleLayerBytes, fetches the layer
// (verified against its digest) and unpacks it with the safe untar of the Job
// runner (no path escapes, no links, at most bundletar.MaxBundleBytes). Anything
// that is not such an artifact wraps ports.ErrBundleRejected.
func (r *Registry) PullBundle(ctx context.Context, digest ports.Digest) (fs.FS, error) {
	if !digestRe.MatchString(string(digest)) {
		return nil, fmt.Errorf("pull bundle: digest %q is not sha256:<64 hex>: %w", digest, ports.ErrBundleRejected)
	}
	ref := r.repoRef(BundlesRepository) + "@" + string(digest)
	repo, err := r.repository(ref, true)
	if err != nil {
		return nil, err
	}
	desc, m, err := fetchManifest(ctx, repo, string(digest))
	if err != nil {
		return nil, fmt.Errorf("pull bundle: %w", err)
	}
	if bad := checkBundleManifest(desc, m); bad != nil {
		return nil, fmt.Errorf("pull bundle %s: %w: %w", ref, ports.ErrBundleRejected, bad)
	}
	archive, err := fetchBlob(ctx, repo, m.Layers[0])
	if err != nil {
		return nil, fmt.Errorf("pull bundle: %w", err)
	}
	files, err := bundletar.Untar(archive, bundletar.MaxBundleBytes)
	if err != nil {
		return nil, fmt.Errorf("pull bundle %s: %w: %w", ref, ports.ErrBundleRejected, err)
	}
	return files, nil
}

var (
	errNotABundle = errors.New("not an AICR bundle artifact")
	digestRe      = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// checkBundleManifest refuses a manifest that is not AICR's bundle artifact.
func checkBundleManifest(desc ocispec.Descriptor, m ocispec.Manifest) error {
	switch {
	case desc.MediaType != ocispec.MediaTypeImageManifest || (m.MediaType != "" && m.MediaType != ocispec.MediaTypeImageManifest):
		return fmt.Errorf("%w: manifest media type %q, want %q", errNotABundle, desc.MediaType, ocispec.MediaTypeImageManifest)
	case m.ArtifactType != BundleArtifactType:
		return fmt.Errorf("%w: artifact type %q, want %q", errNotABundle, m.ArtifactType, BundleArtifactType)
	case len(m.Layers) != 1:
		return fmt.Errorf("%w: %d layers, want exactly one gzip tar layer", errNotABundle, len(m.Layers))
	case m.Layers[0].MediaType != BundleLayerMediaType:
		return fmt.Errorf("%w: layer media type %q, want %q", errNotABundle, m.Layers[0].MediaType, BundleLayerMediaType)
	case m.Layers[0].Size <= 0 || m.Layers[0].Size > MaxBundleLayerBytes:
		return fmt.Errorf("%w: layer of %d bytes, the bound is %d", errNotABundle, m.Layers[0].Size, MaxBundleLayerBytes)
	case m.Layers[0].Digest.Validate() != nil:
		return fmt.Errorf("%w: layer digest %q", errNotABundle, m.Layers[0].Digest)
	}
	return nil
}
