package domain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/NVIDIA/aicr/ports"
)

// LocalChartFiles returns the files of a bundle-local chart: its bundle
// folder, Chart.yaml at the root.
type LocalChartFiles func(releaseID string) (fs.FS, error)

// PublishCharts serves every chart of p from the runtime registry and pins it
// by manifest digest (PLAN-3, REG-1), then recomputes the plan digest. An
// upstream chart is mirrored once its archive verifies (Registry.MirrorChart;
// the verified archive digest is recorded, PLAN-2); a bundle-local chart is
// pushed as a wrapper chart (Registry.PushWrapper) from local.
//
// Charts are published one at a time, in plan order. An upstream chart published records
// holds (published, nil: none) is handed to MirrorChart with that record, so the registry
// serves it without its upstream when its tag still names the recorded manifest; each upstream
// chart published is recorded at once, so a later call after a failure or a reconcile cut
// short starts after the charts already published.
//
// Credential problems are returned as a stall (RegistryCredentialsUnavailable,
// RegistryCredentialsStale, Unauthorized); an archive that does not verify or
// an upstream chart that does not exist is ChartSourceUnsupported; any other
// error is transient.
func PublishCharts(ctx context.Context, reg ports.Registry, p *Plan, local LocalChartFiles, published *PublishedCharts) (*Stall, error) {
	for i, r := range p.Releases {
		what := fmt.Sprintf("chart %s:%s of release %s", r.Chart.Name, r.Chart.Version, r.ID)
		pinned, err := publishChart(ctx, reg, r, local, published)
		if err != nil {
			if s := RegistryStall("publish "+what, err); s != nil {
				return s, nil
			}
			if errors.Is(err, ports.ErrArchiveRejected) || errors.Is(err, ports.ErrArtifactNotFound) {
				return stallf(StallChartSourceUnsupported, fmt.Sprintf("%s cannot be served from the runtime registry: %v", what, err)), nil
			}
			return nil, fmt.Errorf("publish %s: %w", what, err)
		}
		p.Releases[i].Chart.ManifestDigest = string(pinned.ManifestDigest)
		if r.Kind == ports.KindUpstream {
			p.Releases[i].Chart.ArchiveDigest = string(pinned.ArchiveDigest)
			published.record(r.Chart, pinned)
		}
	}
	var err error
	p.Digest, err = DesiredStateDigest(p.Releases)
	return nil, err
}

// publishChart mirrors an upstream chart, with published's record of it, or pushes a local one.
func publishChart(ctx context.Context, reg ports.Registry, r Release, local LocalChartFiles, published *PublishedCharts) (ports.PinnedChart, error) {
	if r.Kind == ports.KindUpstream {
		return reg.MirrorChart(ctx, published.upstreamChart(r.Chart))
	}
	files, err := local(r.ID)
	if err != nil {
		return ports.PinnedChart{}, fmt.Errorf("read the bundle folder: %w: %w", ports.ErrArtifactNotFound, err)
	}
	return reg.PushWrapper(ctx, files)
}

// RegistryStall returns the stall a registry error stands for
// (RegistryCredentialsUnavailable, RegistryCredentialsStale, Unauthorized;
// RES-6), or nil for a transient error the caller retries.
func RegistryStall(what string, err error) *Stall {
	if s, terr := portStall(what, err); terr == nil {
		return s
	}
	return nil
}
