package oci

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing/fstest"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/nvidia/aicr-operator/ports"
)

// Bundle artifact format: one layer per file, titled with its slash path, so
// `oras pull <registry>/bundles/cluster@<digest> -o dir` recreates the tree.
const (
	// BundleArtifactType is the artifact type of a rendered bundle.
	BundleArtifactType = "application/vnd.aicr.bundle.v1"
	// BundleFileMediaType is the media type of one bundle file.
	BundleFileMediaType = "application/vnd.aicr.bundle.file.v1"
	// AnnotationPlanDigest records the plan a bundle or evidence belongs to.
	AnnotationPlanDigest = "operator.aicr.run/plan-digest"
	// MaxBundleFiles bounds the files of a bundle.
	MaxBundleFiles = 4096
	// MaxBundleBytes bounds the total size of a bundle.
	MaxBundleBytes = 64 << 20
)

var (
	errBundleInvalid = errors.New("invalid bundle")
	planDigestRe     = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// PushBundle stores every regular file of bundle as a titled layer in
// <registry>/bundles/cluster, tagged plan-<first 16 hex of planDigest>-<hex
// of its manifest digest> (pushContentTagged: another bundle for the same
// plan never moves the tag of the first; a tag holding other content is
// refused with ports.ErrForeignObject).
func (r *Registry) PushBundle(ctx context.Context, planDigest string, bundle fs.FS) (ports.Digest, error) {
	if !planDigestRe.MatchString(planDigest) {
		return "", fmt.Errorf("push bundle: plan digest %q: %w", planDigest, errBundleInvalid)
	}
	var files []string
	err := fs.WalkDir(bundle, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("walk bundle: %w", err)
	}
	if len(files) == 0 || len(files) > MaxBundleFiles {
		return "", fmt.Errorf("push bundle: %d files (1 to %d): %w", len(files), MaxBundleFiles, errBundleInvalid)
	}
	sort.Strings(files)
	a := artifact{
		artifactType: BundleArtifactType, config: newBlob(ocispec.MediaTypeEmptyJSON, []byte("{}"), nil),
		annotations: map[string]string{AnnotationPlanDigest: planDigest},
	}
	total := 0
	for _, p := range files {
		data, rerr := fs.ReadFile(bundle, p)
		if rerr != nil {
			return "", fmt.Errorf("read bundle file %s: %w", p, rerr)
		}
		if total += len(data); total > MaxBundleBytes {
			return "", fmt.Errorf("push bundle: more than %d bytes: %w", MaxBundleBytes, errBundleInvalid)
		}
		a.layers = append(a.layers, newBlob(BundleFileMediaType, data, map[string]string{ocispec.AnnotationTitle: p}))
	}
	repo, err := r.repository(r.repoRef(BundlesRepository), true)
	if err != nil {
		return "", err
	}
	desc, err := pushContentTagged(ctx, repo, a, "plan-"+strings.TrimPrefix(planDigest, "sha256:")[:16])
	if err != nil {
		return "", fmt.Errorf("push bundle: %w", err)
	}
	return ports.Digest(desc.Digest), nil
}

// PullBundle returns the files of the bundle stored under digest, each
// verified against its layer digest.
func (r *Registry) PullBundle(ctx context.Context, digest ports.Digest) (fs.FS, error) {
	repo, err := r.repository(r.repoRef(BundlesRepository)+"@"+string(digest), true)
	if err != nil {
		return nil, err
	}
	_, m, err := fetchManifest(ctx, repo, string(digest))
	if err != nil {
		return nil, fmt.Errorf("pull bundle: %w", err)
	}
	if m.ArtifactType != BundleArtifactType || len(m.Layers) > MaxBundleFiles {
		return nil, fmt.Errorf("pull bundle %s: artifact type %q: %w", digest, m.ArtifactType, errBundleInvalid)
	}
	out := fstest.MapFS{}
	total := int64(0)
	for _, l := range m.Layers {
		title := l.Annotations[ocispec.AnnotationTitle]
		if _, dup := out[title]; dup || !fs.ValidPath(title) || title == "." {
			return nil, fmt.Errorf("pull bundle %s: file %q: %w", digest, title, errBundleInvalid)
		}
		if total += l.Size; total > MaxBundleBytes {
			return nil, fmt.Errorf("pull bundle %s: more than %d bytes: %w", digest, MaxBundleBytes, errBundleInvalid)
		}
		data, err := fetchBlob(ctx, repo, l)
		if err != nil {
			return nil, fmt.Errorf("pull bundle: %w", err)
		}
		out[title] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return out, nil
}
