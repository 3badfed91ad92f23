package oci

import (
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

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
	repoRef, desc, m, err := r.chartTag(ctx, src)
	if errors.Is(err, ports.ErrArtifactNotFound) {
		return ports.PinnedChart{}, false, nil
	}
	if err != nil {
		return ports.PinnedChart{}, false, err
	}
	if heldSource, heldArchive, layer, ok := mirrored(m, source, archive); !ok {
		return ports.PinnedChart{}, false, fmt.Errorf(
			"%s:%s holds archive %s (chart layer %q) from %q; refusing archive %s from %q: %w",
			repoRef, tagOf(src.Version), heldArchive, layer, heldSource, archive, source, ports.ErrArchiveRejected)
	}
	return ports.PinnedChart{
		Repository: repoRef, Name: src.Name, Version: src.Version,
		ManifestDigest: ports.Digest(desc.Digest), ArchiveDigest: ports.Digest(archive),
	}, true, nil
}

// recorded returns the chart the runtime registry holds at <registry>/charts/<name>:<version>
// when chart carries the operator's record of it (RecordedManifestDigest and
// ExpectedArchiveDigest) and the tag still names exactly the recorded manifest, mirrored from
// source with the recorded archive as its chart layer: ok true, and the upstream is not
// contacted. Anything else (no record, no tag, a tag naming another manifest or content) is
// ok false, for MirrorChart to fetch and verify the upstream as without a record; only a
// registry error is returned.
func (r *Registry) recorded(ctx context.Context, chart ports.UpstreamChart, source string) (ports.PinnedChart, bool, error) {
	want, archive := chart.RecordedManifestDigest, string(chart.ExpectedArchiveDigest)
	if want == "" || archive == "" {
		return ports.PinnedChart{}, false, nil
	}
	repoRef, desc, m, err := r.chartTag(ctx, chart.Chart)
	if errors.Is(err, ports.ErrArtifactNotFound) {
		return ports.PinnedChart{}, false, nil
	}
	if err != nil {
		return ports.PinnedChart{}, false, err
	}
	if _, _, _, ok := mirrored(m, source, archive); !ok || ports.Digest(desc.Digest) != want {
		return ports.PinnedChart{}, false, nil
	}
	return ports.PinnedChart{
		Repository: repoRef, Name: chart.Chart.Name, Version: chart.Chart.Version,
		ManifestDigest: want, ArchiveDigest: ports.Digest(archive),
	}, true, nil
}

// chartTag fetches the manifest <registry>/charts/<name>:<version> names, with the repository
// reference; a missing tag wraps ports.ErrArtifactNotFound.
func (r *Registry) chartTag(ctx context.Context, src ports.ChartSource) (string, ocispec.Descriptor, ocispec.Manifest, error) {
	repoRef := r.repoRef(ChartsPath + "/" + src.Name)
	repo, err := r.repository(repoRef, true)
	if err != nil {
		return repoRef, ocispec.Descriptor{}, ocispec.Manifest{}, err
	}
	desc, m, err := fetchManifest(ctx, repo, tagOf(src.Version))
	return repoRef, desc, m, err
}

// mirrored says whether manifest m is a chart mirrored from source with the archive digest
// archive as its one chart layer, and returns what m records (its source and archive
// annotations and its chart layer) for a refusal to name.
func mirrored(m ocispec.Manifest, source, archive string) (heldSource, heldArchive, layer string, ok bool) {
	heldSource, heldArchive = m.Annotations[AnnotationUpstreamSource], m.Annotations[AnnotationUpstreamArchiveDigest]
	if len(m.Layers) == 1 && m.Layers[0].MediaType == HelmChartMediaType {
		layer = string(m.Layers[0].Digest)
	}
	ok = heldSource == source && heldArchive == archive && layer == archive && m.Config.MediaType == HelmConfigMediaType
	return heldSource, heldArchive, layer, ok
}
