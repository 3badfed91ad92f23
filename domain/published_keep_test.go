package domain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// restored is the record of release i of plan as Publish.Keep kept it.
func restored(plan *domain.Plan, i int) domain.PublishedChart {
	src := plan.Releases[i].Chart
	src.ManifestDigest, src.ArchiveDigest = "", ""
	return domain.PublishedChart{Source: src, Pinned: pinnedAt(i)}
}

// TestPublishCharts_KeepsTheRecordAfterEachChartFetched: a chart restored from a kept record is
// handed to the registry with it (no upstream), and after each chart fetched from its upstream
// Keep gets every upstream chart of the plan published so far, in plan order; a chart served
// from its record alone is no reason to keep again.
func TestPublishCharts_KeepsTheRecordAfterEachChartFetched(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	plan := targetPlan(t)
	published := domain.NewPublishedCharts()
	published.Restore([]domain.PublishedChart{restored(plan, 0)})
	gomock.InOrder(
		r.reg.MirrorChart(gomock.Any(), recordedChart(plan, 0)).Return(pinnedAt(0), nil),
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[1].Chart}).Return(pinnedAt(1), nil),
	)
	var kept [][]domain.PublishedChart
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, noLocalCharts, domain.Publish{Published: published,
		Keep: func(_ context.Context, charts []domain.PublishedChart) error {
			kept = append(kept, append([]domain.PublishedChart(nil), charts...))
			return nil
		}})
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Equal(t, [][]domain.PublishedChart{{restored(plan, 0), restored(plan, 1)}}, kept)
}

// TestPublishCharts_AChartNotKeptEndsTheCall: when Keep fails the call ends with its error, a
// transient one, before the next chart.
func TestPublishCharts_AChartNotKeptEndsTheCall(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	plan := targetPlan(t)
	r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[0].Chart}).Return(pinnedAt(0), nil)
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, noLocalCharts, domain.Publish{
		Published: domain.NewPublishedCharts(),
		Keep:      func(context.Context, []domain.PublishedChart) error { return errBoom },
	})
	require.ErrorIs(t, err, errBoom)
	assert.Contains(t, err.Error(), "keep the record of the published charts")
	assert.Nil(t, s)
}

// TestPublishedCharts_RestoreNeedsBothDigests: a kept chart without its manifest or archive
// digest is no record: the registry gets it as never published.
func TestPublishedCharts_RestoreNeedsBothDigests(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	plan := targetPlan(t)
	noArchive, noManifest := restored(plan, 0), restored(plan, 1)
	noArchive.Pinned.ArchiveDigest, noManifest.Pinned.ManifestDigest = "", ""
	published := domain.NewPublishedCharts()
	published.Restore([]domain.PublishedChart{noArchive, noManifest})
	for i := range plan.Releases {
		r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[i].Chart}).Return(pinnedAt(i), nil)
	}
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, noLocalCharts, domain.Publish{Published: published})
	require.NoError(t, err)
	assert.Nil(t, s)
}
