package oci_test

import (
	"context"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/chartref"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// pinnedFixturePlan builds the fixture bundle's plan the way the resolver
// does: every upstream chart is served by the in-process upstream, then
// domain.PublishCharts mirrors them and pushes every local chart as a wrapper.
func pinnedFixturePlan(t *testing.T, reg *oci.Registry, up *upstream) *domain.Plan {
	t.Helper()
	serveFixtureCharts(t, up)
	p, local := fixturePlan(t)
	stall, err := domain.PublishCharts(context.Background(), reg, p, local, domain.Publish{})
	require.NoError(t, err)
	require.Nil(t, stall)
	return p
}

// fixturePlan builds the fixture bundle's plan, unpinned, and reads its local charts from the
// bundle's folders.
func fixturePlan(t *testing.T) (*domain.Plan, domain.LocalChartFiles) {
	t.Helper()
	b, err := aicr.ReadDir(fixtureBundle)
	require.NoError(t, err)
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "0b7e4a51-3f9a-4c0d-8b2e-1c0d2b7e4a51", Bundle: b})
	require.NoError(t, err)
	dirs := map[string]string{}
	for _, br := range b.Releases {
		dirs[br.Name] = br.Path
	}
	return p, func(id string) (fs.FS, error) { return fs.Sub(os.DirFS(fixtureBundle), dirs[id]) }
}

// serveFixtureCharts publishes every upstream chart of the fixture bundle in up.
func serveFixtureCharts(t *testing.T, up *upstream) {
	t.Helper()
	b, err := aicr.ReadDir(fixtureBundle)
	require.NoError(t, err)
	for _, br := range b.Releases {
		c := br.Chart
		if br.Kind == ports.KindLocal {
			continue
		}
		archive := chartArchive(t, c.Name, c.Version, br.Name)
		if parent, ok := strings.CutPrefix(c.Repository, "oci://"); ok {
			up.addOCIChart(t, parent, c.Name, c.Version, archive)
		} else {
			up.addHTTPChart(c.Repository, c.Name, c.Version, archive, "")
		}
	}
}

func TestChartSources_FixturePlanReferencesOnlyRegistryDigests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, up := newRegistry(t)
	p := pinnedFixturePlan(t, reg, up)

	specs := make([]ports.ReleaseSpec, 0, len(p.Releases))
	for _, r := range p.Releases {
		specs = append(specs, ports.ReleaseSpec{Ref: r.Ref(), Chart: r.Chart, ContentDigest: r.ContentDigest})
	}
	srcs := make([]chartref.Source, 0, len(specs))
	for _, spec := range specs {
		src, err := chartref.For("oci://"+reg.Base(), spec)
		require.NoError(t, err)
		srcs = append(srcs, src)
	}
	require.Len(t, srcs, len(p.Releases))

	pinned := regexp.MustCompile(`^` + regexp.QuoteMeta(reg.Base()) + `/(charts|wrappers)/[a-z0-9-]+@sha256:[a-f0-9]{64}$`)
	kinds := map[string]int{}
	for i, s := range srcs {
		r := p.Releases[i]
		ref := s.Repository + "@" + s.TargetRevision
		assert.Regexp(t, pinned, ref, r.ID)
		assert.Equal(t, "oci://"+s.Repository, s.RepoURL)
		assert.Equal(t, r.ID, s.ReleaseID)
		want := reg.Base() + "/charts/" + r.Chart.Name
		if r.Kind == ports.KindLocal {
			want = reg.Base() + "/wrappers/" + r.Chart.Name
		}
		assert.Equal(t, want, s.Repository, r.ID)
		d, err := reg.Resolve(ctx, ref)
		require.NoError(t, err, "%s is served by the runtime registry", ref)
		assert.Equal(t, s.TargetRevision, string(d))
		kinds[strings.Split(strings.TrimPrefix(s.Repository, reg.Base()+"/"), "/")[0]]++
	}
	assert.Equal(t, map[string]int{"charts": 12, "wrappers": 3}, kinds)
}
