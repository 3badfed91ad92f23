package resolver_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// flakyUpstreams is a registry double over upstreams that go down after a number of charts were
// fetched from them: it serves a chart without its upstream only with the record of how it was
// published, and counts by chart the attempts that go to the upstream.
type flakyUpstreams struct {
	mu sync.Mutex
	// downAfter is how many charts the upstreams serve before they go down (0: never).
	downAfter int
	down      bool
	served    int
	attempts  map[string]int
	// fromRecord counts the charts served from their records.
	fromRecord int
}

func newFlakyUpstreams(t *testing.T, downAfter int) (*flakyUpstreams, ports.Registry) {
	u := &flakyUpstreams{downAfter: downAfter, attempts: map[string]int{}}
	reg := mocks.NewMockRegistry(gomock.NewController(t))
	reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c ports.UpstreamChart) (ports.PinnedChart, error) {
		u.mu.Lock()
		defer u.mu.Unlock()
		pc := publishedAs(c.Chart)
		if c.RecordedManifestDigest != "" {
			if c.RecordedManifestDigest != pc.ManifestDigest || c.ExpectedArchiveDigest != pc.ArchiveDigest {
				return ports.PinnedChart{}, errors.New("the double never published " + c.Chart.Name + " so")
			}
			u.fromRecord++
			return pc, nil
		}
		u.attempts[c.Chart.Name+":"+c.Chart.Version]++
		if u.down || (u.downAfter > 0 && u.served >= u.downAfter) {
			u.down = true
			return ports.PinnedChart{}, errors.New("get " + c.Chart.Repository + "/index.yaml: status 503")
		}
		u.served++
		return pc, nil
	}).AnyTimes()
	reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: wrapper}, nil).AnyTimes()
	return u, reg
}

// setDown takes the upstreams down or brings them back.
func (u *flakyUpstreams) setDown(down bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.down, u.downAfter = down, 0
}

// attemptsOf returns the upstream attempts of each chart of charts.
func (u *flakyUpstreams) attemptsOf(charts []string) map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string]int{}
	for _, c := range charts {
		out[c] = u.attempts[c]
	}
	return out
}

// keptCharts returns the charts the kept record of the published charts lists.
func keptCharts(t *testing.T) []string {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: resolver.PublishedChartsConfigMap}, cm)
	if err != nil {
		return nil
	}
	var charts []domain.PublishedChart
	if json.Unmarshal([]byte(cm.Data["charts.json"]), &charts) != nil {
		return nil
	}
	out := make([]string, 0, len(charts))
	for _, c := range charts {
		out = append(out, c.Source.Name+":"+c.Source.Version)
	}
	return out
}

// upstreamCharts returns the upstream charts of the synthetic render's plan, in plan order.
func upstreamCharts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range wantPlan(t, v1Synthetic).Releases {
		if r.Kind == ports.KindUpstream {
			out = append(out, r.Chart.Name+":"+r.Chart.Version)
		}
	}
	return out
}

// publishedBeforeTheUpstreamsWentDown runs a resolver until it published the first published
// charts and the upstreams went down, and stops it: the operator stopping with the publish
// cut short. It returns the harness and the charts it published.
func publishedBeforeTheUpstreamsWentDown(t *testing.T, u *flakyUpstreams, reg ports.Registry, published int) (*harness, []string) {
	t.Helper()
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	bundles := serveBundleRegistry(t, pushPass)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: reg, Bundles: bundles.reg}})
	createRuntime(t, runtimeSpec())
	first := upstreamCharts(t)[:published]
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(first, keptCharts(t)) }, wait, tick,
		"the first %d charts are kept as they are published", published)
	h.stopResolver()
	return h, first
}

// TestResolve_APublishCutShortResumesAfterARestartWithoutFetchingItsChartsAgain: the resolver
// publishes the first 5 upstream charts of the render, then the upstreams go down and the
// operator restarts (a new resolver, a new process state). The new one serves the 5 from the
// runtime registry by the sealed record the first one kept, never fetching them again, and
// publishes the rest once the upstreams are back; the runtime resolves.
func TestResolve_APublishCutShortResumesAfterARestartWithoutFetchingItsChartsAgain(t *testing.T) {
	const published = 5
	u, reg := newFlakyUpstreams(t, published)
	h, first := publishedBeforeTheUpstreamsWentDown(t, u, reg, published)
	all := upstreamCharts(t)
	t.Logf("published %d of %d upstream charts before the upstreams went down", published, len(all))

	u.mu.Lock()
	fromRecord, next := u.fromRecord, u.attempts[all[published]]
	u.mu.Unlock()
	h.runResolver(t)
	require.Eventually(t, func() bool {
		u.mu.Lock()
		defer u.mu.Unlock()
		return u.fromRecord >= fromRecord+published && u.attempts[all[published]] > next
	}, wait, tick, "the restarted resolver serves the 5 from their record and tries the next upstream chart")
	for c, n := range u.attemptsOf(first) {
		assert.Equal(t, 1, n, "%s is not fetched again while its upstream is down", c)
	}

	u.setDown(false)
	resolved(t, domain.ReasonResolved)
	for c, n := range u.attemptsOf(first) {
		assert.Equal(t, 1, n, "%s is fetched once in all", c)
	}
	for c, n := range u.attemptsOf(all[published+1:]) {
		assert.Equal(t, 1, n, "%s is fetched once the upstreams are back", c)
	}
	assert.Equal(t, all, keptCharts(t), "the record lists every upstream chart of the plan")
}

// TestResolve_AForgedOrTamperedPublishRecordIsNotTrusted: a record of the published charts the
// operator cannot prove it wrote unchanged (its seal does not verify over what it lists) is not
// trusted after a restart: every chart it lists is fetched from its upstream again, and the
// resolver replaces it with its own.
func TestResolve_AForgedOrTamperedPublishRecordIsNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, cm *corev1.ConfigMap)
	}{
		{"a chart's digests changed under the seal", func(t *testing.T, cm *corev1.ConfigMap) {
			var charts []domain.PublishedChart
			require.NoError(t, json.Unmarshal([]byte(cm.Data["charts.json"]), &charts))
			charts[0].Pinned.ManifestDigest = "sha256:" + zeros64
			raw, err := json.Marshal(charts)
			require.NoError(t, err)
			cm.Data["charts.json"] = string(raw)
			require.NoError(t, k8s.Update(context.Background(), cm))
		}},
		{"written by another identity with a made-up seal", func(t *testing.T, cm *corev1.ConfigMap) {
			require.NoError(t, k8s.Delete(context.Background(), cm))
			forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name,
				Labels: cm.Labels, Annotations: map[string]string{aicrv1alpha1.AnnotationSeal: cm.Annotations[aicrv1alpha1.AnnotationSeal]}},
				Data: cm.Data}
			require.NoError(t, k8s.Create(context.Background(), forged))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const published = 5
			u, reg := newFlakyUpstreams(t, published)
			h, first := publishedBeforeTheUpstreamsWentDown(t, u, reg, published)
			cm := &corev1.ConfigMap{}
			require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: resolver.PublishedChartsConfigMap}, cm))
			tc.change(t, cm)
			u.setDown(false)

			h.runResolver(t)
			resolved(t, domain.ReasonResolved)
			for c, n := range u.attemptsOf(first) {
				assert.Equal(t, 2, n, "%s is fetched from its upstream again", c)
			}
			assert.Equal(t, upstreamCharts(t), keptCharts(t), "the resolver keeps its own record")
		})
	}
}

// zeros64 is 64 hexadecimal zeros.
const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"
