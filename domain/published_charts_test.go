package domain_test

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// pinnedAt returns the chart the registry pins for release i of targetPlan.
func pinnedAt(i int) ports.PinnedChart {
	return ports.PinnedChart{
		ManifestDigest: ports.Digest(fmt.Sprintf("sha256:%02d", i)), ArchiveDigest: ports.Digest(fmt.Sprintf("sha256:a%02d", i)),
	}
}

// recordedChart is release i's upstream chart with the record of pinnedAt(i).
func recordedChart(plan *domain.Plan, i int) ports.UpstreamChart {
	return ports.UpstreamChart{Chart: plan.Releases[i].Chart,
		RecordedManifestDigest: pinnedAt(i).ManifestDigest, ExpectedArchiveDigest: pinnedAt(i).ArchiveDigest}
}

// TestPublishCharts_RecordedPlanChartsComeFromTheRegistry: the charts of a plan the operator
// wrote are handed to the registry with their recorded manifest and archive digests, so a
// second resolution, or an override-only change, needs no upstream.
func TestPublishCharts_RecordedPlanChartsComeFromTheRegistry(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	earlier := targetPlan(t)
	for i := range earlier.Releases {
		pc := pinnedAt(i)
		earlier.Releases[i].Chart.ManifestDigest, earlier.Releases[i].Chart.ArchiveDigest = string(pc.ManifestDigest), string(pc.ArchiveDigest)
	}
	published := domain.NewPublishedCharts()
	published.RecordPlan(earlier)

	plan := targetPlan(t)
	for i := range plan.Releases {
		r.reg.MirrorChart(gomock.Any(), recordedChart(plan, i)).Return(pinnedAt(i), nil)
	}
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, noLocalCharts, domain.Publish{Published: published})
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Equal(t, string(pinnedAt(1).ManifestDigest), plan.Releases[1].Chart.ManifestDigest)
}

// TestPublishCharts_ResumesAfterThePublishedCharts: a publish that fails at its second chart
// recorded the first one, so the next attempt hands it to the registry with its record and
// fetches only the rest; a chart nothing recorded goes without one.
func TestPublishCharts_ResumesAfterThePublishedCharts(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	published := domain.NewPublishedCharts()
	first := targetPlan(t)
	gomock.InOrder(
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: first.Releases[0].Chart}).Return(pinnedAt(0), nil),
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: first.Releases[1].Chart}).Return(ports.PinnedChart{}, errBoom),
	)
	_, err := domain.PublishCharts(context.Background(), p.Registry, first, noLocalCharts, domain.Publish{Published: published})
	require.ErrorIs(t, err, errBoom)

	again := targetPlan(t)
	gomock.InOrder(
		r.reg.MirrorChart(gomock.Any(), recordedChart(again, 0)).Return(pinnedAt(0), nil),
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: again.Releases[1].Chart}).Return(pinnedAt(1), nil),
	)
	s, err := domain.PublishCharts(context.Background(), p.Registry, again, noLocalCharts, domain.Publish{Published: published})
	require.NoError(t, err)
	assert.Nil(t, s)
}

// TestPublishedCharts_RecordPlanNeedsBothDigests: an upstream chart a plan records without
// its archive digest is no record: the registry gets it as never published.
func TestPublishedCharts_RecordPlanNeedsBothDigests(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	earlier := targetPlan(t)
	earlier.Releases[0].Chart.ManifestDigest = string(pinnedAt(0).ManifestDigest)
	earlier.Releases[1].Chart.ArchiveDigest = string(pinnedAt(1).ArchiveDigest)
	published := domain.NewPublishedCharts()
	published.RecordPlan(earlier)

	plan := targetPlan(t)
	for i := range plan.Releases {
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[i].Chart}).Return(pinnedAt(i), nil)
	}
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, noLocalCharts, domain.Publish{Published: published})
	require.NoError(t, err)
	assert.Nil(t, s)
}

// noLocalCharts is a bundle without local chart folders.
func noLocalCharts(id string) (fs.FS, error) { return nil, fmt.Errorf("no folder for %s", id) }

// TestPublishCharts_ASpentBudgetLeavesTheRestToTheNextCall: once the budget is spent no
// further upstream chart is fetched; the call says how far it got, and the next one serves the
// published chart from its record and fetches the rest. Every call fetches at least one chart,
// even with its budget spent at the start.
func TestPublishCharts_ASpentBudgetLeavesTheRestToTheNextCall(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r.clock.Now().DoAndReturn(func() time.Time { return now }).AnyTimes()
	slow := func(i int) func(context.Context, ports.UpstreamChart) (ports.PinnedChart, error) {
		return func(context.Context, ports.UpstreamChart) (ports.PinnedChart, error) {
			now = now.Add(2 * time.Minute)
			return pinnedAt(i), nil
		}
	}
	published := domain.NewPublishedCharts()
	first := targetPlan(t)
	r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: first.Releases[0].Chart}).DoAndReturn(slow(0))
	_, err := domain.PublishCharts(context.Background(), p.Registry, first, noLocalCharts,
		domain.Publish{Published: published, Clock: p.Clock, Until: now.Add(-time.Second)})
	require.ErrorIs(t, err, domain.ErrPublishUnfinished)
	assert.Contains(t, err.Error(), "1 of 2 upstream charts published")
	assert.Contains(t, err.Error(), first.Releases[1].Chart.Name, "it names the chart it stopped before")

	again := targetPlan(t)
	gomock.InOrder(
		r.reg.MirrorChart(gomock.Any(), recordedChart(again, 0)).Return(pinnedAt(0), nil),
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: again.Releases[1].Chart}).DoAndReturn(slow(1)),
	)
	s, err := domain.PublishCharts(context.Background(), p.Registry, again, noLocalCharts,
		domain.Publish{Published: published, Clock: p.Clock, Until: now.Add(time.Minute)})
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Equal(t, string(pinnedAt(1).ManifestDigest), again.Releases[1].Chart.ManifestDigest)
}
