package oci

import (
	"context"
	"errors"
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// held returns the chart the runtime registry already holds at
// <registry>/charts/<name>:<version> when that tag was mirrored from source
// with the archive digest archive (ok true: reused, nothing to push), and
// ok false when the tag does not exist. A tag recording another source or
// another archive digest, or whose chart layer is not the archive its
// annotation records, wraps ports.ErrArchiveRejected naming both: a chart
// version seen once keeps its archive and its upstream.
func (r *Registry) held(ctx context.Context, src ports.ChartSource, source, archive string) (ports.PinnedChart, bool, error) {
	repoRef := r.repoRef(ChartsPath + "/" + src.Name)
	repo, err := r.repository(repoRef, true)
	if err != nil {
		return ports.PinnedChart{}, false, err
	}
	tag := tagOf(src.Version)
	desc, m, err := fetchManifest(ctx, repo, tag)
	if errors.Is(err, ports.ErrArtifactNotFound) {
		return ports.PinnedChart{}, false, nil
	}
	if err != nil {
		return ports.PinnedChart{}, false, err
	}
	heldSource, heldArchive := m.Annotations[AnnotationUpstreamSource], m.Annotations[AnnotationUpstreamArchiveDigest]
	layer := ""
	if len(m.Layers) == 1 && m.Layers[0].MediaType == HelmChartMediaType {
		layer = string(m.Layers[0].Digest)
	}
	if heldSource != source || heldArchive != archive || layer != archive || m.Config.MediaType != HelmConfigMediaType {
		return ports.PinnedChart{}, false, fmt.Errorf(
			"%s:%s holds archive %s (chart layer %q) from %q; refusing archive %s from %q: %w",
			repoRef, tag, heldArchive, layer, heldSource, archive, source, ports.ErrArchiveRejected)
	}
	return ports.PinnedChart{
		Repository: repoRef, Name: src.Name, Version: src.Version,
		ManifestDigest: ports.Digest(desc.Digest), ArchiveDigest: ports.Digest(archive),
	}, true, nil
}
