package oci_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// upstreamGate sits between the registry adapter and the in-process upstream: it counts the
// requests the upstream receives and the chart archives it serves (a Helm repository's .tgz,
// an OCI blob), and answers 503 once down says so.
type upstreamGate struct {
	up *upstream
	mu sync.Mutex
	// down says whether the upstream fails a request, given the archives served so far.
	down     func(archivesServed int) bool
	requests int
	archives []string
}

// RoundTrip serves req from the upstream unless the gate is down.
func (g *upstreamGate) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.requests++
	down := g.down != nil && g.down(len(g.archives))
	archive := strings.HasSuffix(req.URL.Path, ".tgz") || strings.Contains(req.URL.Path, "/blobs/")
	if archive && !down {
		g.archives = append(g.archives, req.URL.Host+req.URL.Path)
	}
	g.mu.Unlock()
	if down {
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable",
			Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	}
	return g.up.RoundTrip(req)
}

// counts returns the requests the upstream received and the archives it served, and starts
// counting afresh.
func (g *upstreamGate) counts() (int, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, a := g.requests, g.archives
	g.requests, g.archives = 0, nil
	return n, a
}

// setDown makes the upstream fail as down says.
func (g *upstreamGate) setDown(down func(int) bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.down = down
}

// newGatedRegistry returns an adapter for the runtime registry at host (a new operator process)
// whose upstream requests pass gate.
func newGatedRegistry(t *testing.T, host string, gate *upstreamGate) *oci.Registry {
	t.Helper()
	client := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Host == host {
			return http.DefaultTransport.RoundTrip(req)
		}
		return gate.RoundTrip(req)
	})}
	reg, err := oci.New(oci.Options{Registry: "oci://" + host + "/aicr", PlainHTTP: true, HTTPClient: client, Retry: fastRetry})
	require.NoError(t, err)
	return reg
}

// countChartPushes counts the mirrored charts' manifest pushes a registry receives.
func countChartPushes(n *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/aicr/charts/") && strings.Contains(r.URL.Path, "/manifests/") {
				n.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// alwaysDown is an upstream outage.
func alwaysDown(int) bool { return true }

// publishFixture publishes the fixture plan's charts with published's record and returns the
// plan.
func publishFixture(t *testing.T, reg *oci.Registry, published *domain.PublishedCharts) (*domain.Plan, error) {
	t.Helper()
	p, local := fixturePlan(t)
	stall, err := domain.PublishCharts(context.Background(), reg, p, local, domain.Publish{Published: published})
	require.Nil(t, stall)
	return p, err
}

// chartDigests returns the manifest digest of every release of p.
func chartDigests(p *domain.Plan) map[string]string {
	m := map[string]string{}
	for _, r := range p.Releases {
		m[r.ID] = r.Chart.ManifestDigest
	}
	return m
}

// upstreamCharts counts the upstream releases of p.
func upstreamCharts(p *domain.Plan) int {
	n := 0
	for _, r := range p.Releases {
		if r.Kind == ports.KindUpstream {
			n++
		}
	}
	return n
}

func TestPublishCharts_ASecondResolutionMakesNoUpstreamRequest(t *testing.T) {
	t.Parallel()
	host := serveRegistry(t, nil)
	gate := &upstreamGate{up: newUpstream()}
	serveFixtureCharts(t, gate.up)
	reg, published := newGatedRegistry(t, host, gate), domain.NewPublishedCharts()
	first, err := publishFixture(t, reg, published)
	require.NoError(t, err)
	_, archives := gate.counts()
	require.Len(t, archives, upstreamCharts(first), "the first resolution fetches every upstream chart once")

	second, err := publishFixture(t, reg, published)
	require.NoError(t, err)
	requests, _ := gate.counts()
	assert.Zero(t, requests, "the same process asks the upstream nothing")
	assert.Equal(t, chartDigests(first), chartDigests(second))

	restarted := domain.NewPublishedCharts()
	restarted.RecordPlan(first)
	third, err := publishFixture(t, newGatedRegistry(t, host, gate), restarted)
	require.NoError(t, err)
	requests, _ = gate.counts()
	assert.Zero(t, requests, "a new process with the plan it wrote asks the upstream nothing")
	assert.Equal(t, chartDigests(first), chartDigests(third))
}

func TestPublishCharts_AnUpstreamThatFailsAfterSomeChartsResumesWithTheRest(t *testing.T) {
	t.Parallel()
	const servedBeforeOutage = 5
	var chartPushes atomic.Int64
	host := serveRegistry(t, countChartPushes(&chartPushes))
	gate := &upstreamGate{up: newUpstream()}
	serveFixtureCharts(t, gate.up)
	gate.setDown(func(served int) bool { return served >= servedBeforeOutage })
	reg, published := newGatedRegistry(t, host, gate), domain.NewPublishedCharts()
	_, err := publishFixture(t, reg, published)
	require.Error(t, err, "the upstream fails after %d charts", servedBeforeOutage)
	_, before := gate.counts()
	require.Len(t, before, servedBeforeOutage)
	require.Equal(t, int64(servedBeforeOutage), chartPushes.Swap(0))

	gate.setDown(nil)
	p, err := publishFixture(t, reg, published)
	require.NoError(t, err)
	_, after := gate.counts()
	assert.Len(t, after, upstreamCharts(p)-servedBeforeOutage, "only the charts not yet published are fetched")
	assert.Equal(t, int64(upstreamCharts(p)-servedBeforeOutage), chartPushes.Load(), "and pushed")
	for _, a := range before {
		assert.NotContains(t, after, a, "a chart published before the outage is not fetched again")
	}
}

func TestPublishCharts_AnOverrideOnlyChangeResolvesWhileTheUpstreamIsDown(t *testing.T) {
	t.Parallel()
	host := serveRegistry(t, nil)
	gate := &upstreamGate{up: newUpstream()}
	serveFixtureCharts(t, gate.up)
	active, err := publishFixture(t, newGatedRegistry(t, host, gate), nil)
	require.NoError(t, err)

	gate.setDown(alwaysDown)
	_, _ = gate.counts()
	published := domain.NewPublishedCharts() // the operator restarted since
	published.RecordPlan(active)
	changed, local := fixturePlan(t)
	changed.Releases[0].Values = map[string]any{"override": "only"}
	stall, err := domain.PublishCharts(context.Background(), newGatedRegistry(t, host, gate), changed, local, domain.Publish{Published: published})
	require.NoError(t, err)
	require.Nil(t, stall)
	requests, _ := gate.counts()
	assert.Zero(t, requests)
	assert.Equal(t, chartDigests(active), chartDigests(changed))
	assert.NotEqual(t, active.Digest, changed.Digest)

	_, err = publishFixture(t, newGatedRegistry(t, host, gate), nil)
	require.Error(t, err, "without the record the outage blocks the same charts")
}

func TestMirrorChart_ARecordIsHonouredOnlyWhileTheTagNamesItsManifest(t *testing.T) {
	t.Parallel()
	const (
		repoURL = "https://charts.jetstack.io"
		name    = "cert-manager"
		version = "v1.17.2"
	)
	tests := []struct {
		name string
		// record returns the record to mirror with, after changing the runtime registry
		// (reg at host) where the case says; served says the registry serves it without
		// the upstream.
		record func(t *testing.T, reg *oci.Registry, seen ports.PinnedChart, archive []byte) ports.UpstreamChart
		served bool
	}{
		{
			name: "the tag names the recorded manifest",
			record: func(_ *testing.T, _ *oci.Registry, seen ports.PinnedChart, _ []byte) ports.UpstreamChart {
				return recordOf(seen)
			},
			served: true,
		},
		{
			name: "the record names another manifest",
			record: func(_ *testing.T, _ *oci.Registry, seen ports.PinnedChart, _ []byte) ports.UpstreamChart {
				seen.ManifestDigest = ports.Digest("sha256:" + strings.Repeat("0", 64))
				return recordOf(seen)
			},
		},
		{
			name: "the record names another archive",
			record: func(_ *testing.T, _ *oci.Registry, seen ports.PinnedChart, _ []byte) ports.UpstreamChart {
				seen.ArchiveDigest = ports.Digest("sha256:" + strings.Repeat("0", 64))
				return recordOf(seen)
			},
		},
		{
			name: "the tag was moved to another manifest claiming the recorded archive",
			record: func(t *testing.T, reg *oci.Registry, seen ports.PinnedChart, archive []byte) ports.UpstreamChart {
				pushOCIChart(t, ociRepo(t, seen.Repository, http.DefaultClient, true), name, version, archive, map[string]string{
					oci.AnnotationUpstreamSource: repoURL + "/" + name, oci.AnnotationUpstreamArchiveDigest: string(seen.ArchiveDigest),
					"planted": "yes",
				})
				moved, err := reg.Resolve(context.Background(), seen.Repository+":"+version)
				require.NoError(t, err)
				require.NotEqual(t, seen.ManifestDigest, moved)
				return recordOf(seen)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := serveRegistry(t, nil)
			gate := &upstreamGate{up: newUpstream()}
			archive := chartArchive(t, name, version, "good")
			gate.up.addHTTPChart(repoURL, name, version, archive, "")
			reg := newGatedRegistry(t, host, gate)
			seen, err := reg.MirrorChart(context.Background(), ports.UpstreamChart{
				Chart: ports.ChartSource{Repository: repoURL, Name: name, Version: version}})
			require.NoError(t, err)
			chart := tt.record(t, reg, seen, archive)

			gate.setDown(alwaysDown)
			_, _ = gate.counts()
			pc, err := newGatedRegistry(t, host, gate).MirrorChart(context.Background(), chart)
			requests, _ := gate.counts()
			if tt.served {
				require.NoError(t, err)
				assert.Equal(t, seen, pc)
				assert.Zero(t, requests)
				return
			}
			require.Error(t, err, "the upstream is asked, and it is down")
			assert.NotZero(t, requests)
		})
	}
}

// recordOf is cert-manager's upstream chart with the operator's record of seen.
func recordOf(seen ports.PinnedChart) ports.UpstreamChart {
	return ports.UpstreamChart{
		Chart:                  ports.ChartSource{Repository: "https://charts.jetstack.io", Name: seen.Name, Version: seen.Version},
		RecordedManifestDigest: seen.ManifestDigest, ExpectedArchiveDigest: seen.ArchiveDigest,
	}
}

func TestMirrorChart_ARecordWhoseTagIsGoneIsMirroredAgainOnlyAsRecorded(t *testing.T) {
	t.Parallel()
	const (
		repoURL = "https://charts.jetstack.io"
		name    = "cert-manager"
		version = "v1.17.2"
	)
	first := func(t *testing.T) []byte { return chartArchive(t, name, version, "first") }
	for _, tt := range []struct {
		name    string
		archive func(t *testing.T) []byte
		refused bool
	}{
		{name: "the upstream serves the recorded archive", archive: first},
		{name: "the upstream replaced the archive", archive: func(t *testing.T) []byte {
			return chartArchive(t, name, version, "republished")
		}, refused: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			reg, up := newRegistry(t)
			up.addHTTPChart(repoURL, name, version, first(t), "")
			seen, err := reg.MirrorChart(ctx, ports.UpstreamChart{Chart: ports.ChartSource{Repository: repoURL, Name: name, Version: version}})
			require.NoError(t, err)

			wiped, laterUp := newRegistry(t) // the runtime registry lost the tag
			laterUp.addHTTPChart(repoURL, name, version, tt.archive(t), "")
			pc, err := wiped.MirrorChart(ctx, recordOf(seen))
			if tt.refused {
				require.ErrorIs(t, err, ports.ErrArchiveRejected)
				assert.Contains(t, err.Error(), string(seen.ArchiveDigest))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, seen.ManifestDigest, pc.ManifestDigest, "the same archive mirrors to the same manifest")
		})
	}
}
