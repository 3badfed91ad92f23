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
// Charts are published one at a time, in plan order (a concurrency of one: the resolver has one
// worker). An upstream chart how.Published records is handed to MirrorChart with that record,
// so the registry serves it without its upstream when its tag still names the recorded
// manifest; each upstream chart published is recorded at once, so a later call after a failure
// or a reconcile cut short starts after the charts already published, and each one fetched from
// its upstream is handed to how.Keep, so a later process does too. Once how's budget is
// spent, no further upstream chart without a record is started: the call returns an error
// wrapping ErrPublishUnfinished, for the caller to continue in its next call. Every call
// starts at least one, so a publish always progresses.
//
// Credential problems are returned as a stall (RegistryCredentialsUnavailable,
// RegistryCredentialsStale, Unauthorized); an archive that does not verify or
// an upstream chart that does not exist is ChartSourceUnsupported; any other
// error is transient.
func PublishCharts(ctx context.Context, reg ports.Registry, p *Plan, local LocalChartFiles, how Publish) (*Stall, error) {
	run := &publishRun{how: how}
	for _, r := range p.Releases {
		if r.Kind == ports.KindUpstream {
			run.upstream++
		}
	}
	for i, r := range p.Releases {
		what := fmt.Sprintf("chart %s:%s of release %s", r.Chart.Name, r.Chart.Version, r.ID)
		pinned, err := run.chart(ctx, reg, r, local)
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
		}
	}
	var err error
	p.Digest, err = DesiredStateDigest(p.Releases)
	return nil, err
}

// publishRun is one call of PublishCharts: how it publishes, its plan's upstream charts, and
// how many of them it finished and fetched without a record so far.
type publishRun struct {
	how                     Publish
	upstream, done, fetched int
	// published are the upstream charts of the plan published so far, for how.Keep.
	published []PublishedChart
}

// chart mirrors the upstream chart of release r with its record, if any, and records it, or
// pushes the bundle-local chart from local. An upstream chart without a record is not started
// once the budget is spent and this call fetched one already (ErrPublishUnfinished).
func (run *publishRun) chart(ctx context.Context, reg ports.Registry, r Release, local LocalChartFiles) (ports.PinnedChart, error) {
	if r.Kind != ports.KindUpstream {
		return localChart(ctx, reg, r, local)
	}
	uc := run.how.Published.upstreamChart(r.Chart)
	fetch := uc.RecordedManifestDigest == ""
	if fetch {
		if run.fetched > 0 && run.how.spent() {
			return ports.PinnedChart{}, fmt.Errorf("%d of %d upstream charts published: %w", run.done, run.upstream, ErrPublishUnfinished)
		}
		run.fetched++
	}
	pinned, err := reg.MirrorChart(ctx, uc)
	if err != nil {
		return pinned, err
	}
	run.done++
	run.how.Published.record(r.Chart, pinned)
	run.published = append(run.published, PublishedChart{Source: uc.Chart, Pinned: pinned})
	if fetch && run.how.Keep != nil {
		if err := run.how.Keep(ctx, run.published); err != nil {
			return pinned, fmt.Errorf("keep the record of the published charts: %w", err)
		}
	}
	return pinned, nil
}

// localChart pushes the bundle-local chart of release r as a wrapper chart.
func localChart(ctx context.Context, reg ports.Registry, r Release, local LocalChartFiles) (ports.PinnedChart, error) {
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
