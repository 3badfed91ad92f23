package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// BundleParts is what a plan's rendered bundle, pulled again by the digest the plan records,
// gives for the plan's lost parts: unproven content, for the domain to check against the
// digests the plan records (domain.RestoreValues, domain.DecidePlanParts).
type BundleParts struct {
	// Values are the values of each release, by release ID (the bundle's release name).
	Values map[string]map[string]any
	// Recipe is the bundle's recipe.yaml; nil when it has none.
	Recipe []byte
}

// PullBundleParts pulls the bundle of digest from the runtime registry, which verifies the
// artifact by its digest before it is unpacked (REG-1), and reads its releases' values and its
// recipe. A bundle the registry no longer holds, rejects or that does not read as a bundle
// returns why there is nothing to rebuild from, and no error; a credential problem is a stall
// (RES-6); any other error is transient.
func PullBundleParts(ctx context.Context, reg ports.Registry, reader ports.BundleReader, digest ports.Digest) (
	parts *BundleParts, why string, stall *domain.Stall, err error) {
	files, err := reg.PullBundle(ctx, digest)
	switch {
	case errors.Is(err, ports.ErrArtifactNotFound) || errors.Is(err, ports.ErrBundleRejected):
		return nil, fmt.Sprintf("bundle %s: %v", digest, err), nil, nil
	case err != nil:
		if s := domain.RegistryStall("pull the plan's bundle "+string(digest), err); s != nil {
			return nil, "", s, nil
		}
		return nil, "", nil, fmt.Errorf("pull the plan's bundle %s: %w", digest, err)
	}
	bundle, err := reader.ReadBundle(files)
	if err != nil {
		return nil, fmt.Sprintf("bundle %s does not read: %v", digest, err), nil, nil
	}
	parts = &BundleParts{Values: make(map[string]map[string]any, len(bundle.Releases))}
	for _, r := range bundle.Releases {
		parts.Values[r.Name] = r.Values
	}
	if raw, err := fs.ReadFile(files, "recipe.yaml"); err == nil {
		parts.Recipe = raw
	}
	return parts, "", nil, nil
}
