package domain

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// ErrPublishUnfinished reports that PublishCharts spent its budget before every chart was
// published: the charts it published are recorded, and the next call continues after them.
var ErrPublishUnfinished = errors.New("publish budget spent; the next attempt continues with the charts not yet published")

// Publish is how one call of PublishCharts publishes.
type Publish struct {
	// Published is the record of the charts published before; nil: none, and nothing is
	// recorded.
	Published *PublishedCharts
	// Clock and Until are the call's budget: once Clock.Now() is after Until, no further
	// upstream chart without a record is started. A nil Clock is no budget.
	Clock ports.Clock
	Until time.Time
	// Keep, when set, is called after each upstream chart the call fetched from its upstream,
	// with every upstream chart of the plan published so far, in plan order, so that the record
	// outlives the operator process: after a restart, PublishedCharts.Restore of what it kept
	// resumes after them. Its error ends the call (a transient error).
	Keep func(ctx context.Context, published []PublishedChart) error
}

// PublishedChart is one chart of a PublishedCharts record: the chart published from the
// upstream source Source (repository, name, version) and how the runtime registry pins it.
type PublishedChart struct {
	Source ports.ChartSource `json:"source"`
	Pinned ports.PinnedChart `json:"pinned"`
}

// spent says whether the budget is spent.
func (how Publish) spent() bool { return how.Clock != nil && how.Clock.Now().After(how.Until) }

// maxPublishedCharts bounds how many charts a PublishedCharts remembers; past it the record
// starts afresh, which costs one upstream fetch per chart (far more chart versions than a
// runtime's plans name).
const maxPublishedCharts = 4096

// PublishedCharts is the operator's record of the upstream charts it published to the runtime
// registry: for each upstream source (repository, name, version), the manifest and archive
// digests it recorded. Entries come from plans the operator wrote and read back through their
// trust check (RecordPlan) and from each chart as PublishCharts publishes it, so a publish cut
// short (an upstream failure, the reconcile deadline) resumes after the charts it finished.
// PublishCharts hands a recorded chart to Registry.MirrorChart, which serves it from the runtime
// registry without contacting the upstream while the chart's tag still names the recorded
// manifest. It lives in memory for the operator process and is safe for concurrent use; what
// Publish.Keep kept of it, Restore brings back after a restart.
type PublishedCharts struct {
	mu     sync.Mutex
	charts map[ports.ChartSource]ports.PinnedChart
}

// NewPublishedCharts returns an empty record.
func NewPublishedCharts() *PublishedCharts {
	return &PublishedCharts{charts: map[ports.ChartSource]ports.PinnedChart{}}
}

// RecordPlan records the upstream charts plan pins (manifest and archive digest set). plan must be one the
// operator wrote and read back through the plan store's trust check (PLAN-5, PLAN-6): a record
// is what lets a chart be served without its upstream.
func (pc *PublishedCharts) RecordPlan(plan *Plan) {
	for _, r := range plan.Releases {
		c := r.Chart
		if c.ManifestDigest == "" || c.ArchiveDigest == "" { // a local chart has no archive digest
			continue
		}
		pc.record(c, ports.PinnedChart{
			Name: c.Name, Version: c.Version,
			ManifestDigest: ports.Digest(c.ManifestDigest), ArchiveDigest: ports.Digest(c.ArchiveDigest),
		})
	}
}

// Restore records charts read back from what Publish.Keep kept, once the caller proved the
// operator wrote it and it is unchanged: a record is what lets a chart be served without its
// upstream. A chart without a manifest or archive digest is left out.
func (pc *PublishedCharts) Restore(charts []PublishedChart) {
	for _, c := range charts {
		if c.Pinned.ManifestDigest == "" || c.Pinned.ArchiveDigest == "" {
			continue
		}
		pc.record(c.Source, c.Pinned)
	}
}

// record remembers pinned as the chart published from upstream source src (a nil record
// remembers nothing).
func (pc *PublishedCharts) record(src ports.ChartSource, pinned ports.PinnedChart) {
	if pc == nil {
		return
	}
	src.ManifestDigest, src.ArchiveDigest = "", ""
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if _, ok := pc.charts[src]; !ok && len(pc.charts) >= maxPublishedCharts {
		clear(pc.charts)
	}
	pc.charts[src] = pinned
}

// upstreamChart is the chart to mirror for upstream source src, with the operator's record of
// it when there is one (a nil record has none).
func (pc *PublishedCharts) upstreamChart(src ports.ChartSource) ports.UpstreamChart {
	src.ManifestDigest, src.ArchiveDigest = "", ""
	uc := ports.UpstreamChart{Chart: src}
	if pc == nil {
		return uc
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if p, ok := pc.charts[src]; ok {
		uc.RecordedManifestDigest, uc.ExpectedArchiveDigest = p.ManifestDigest, p.ArchiveDigest
	}
	return uc
}
