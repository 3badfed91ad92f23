package resolver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// publishedAs is the chart the registry pins for an upstream chart: digests made from its
// source, the same for every publish.
func publishedAs(c ports.ChartSource) ports.PinnedChart {
	digest := func(salt string) ports.Digest {
		s := sha256.Sum256([]byte(salt + c.Repository + "/" + c.Name + ":" + c.Version))
		return ports.Digest("sha256:" + hex.EncodeToString(s[:]))
	}
	return ports.PinnedChart{Name: c.Name, Version: c.Version, ManifestDigest: digest("manifest"), ArchiveDigest: digest("archive")}
}

// TestResolve_AnOverrideOnlyChangeAfterARestartResolvesWhileUpstreamsAreDown: a new resolver
// (an operator restart) hands the charts of the runtime's candidate plan to the registry with
// the digests the plan records, so an override-only change resolves while every upstream is
// down; the registry double serves a chart without its upstream only with that record.
func TestResolve_AnOverrideOnlyChangeAfterARestartResolvesWhileUpstreamsAreDown(t *testing.T) {
	var upstreamDown atomic.Bool
	var servedWithoutUpstream atomic.Int64
	reg := mocks.NewMockRegistry(gomock.NewController(t))
	reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c ports.UpstreamChart) (ports.PinnedChart, error) {
		pc := publishedAs(c.Chart)
		recorded := c.RecordedManifestDigest == pc.ManifestDigest && c.ExpectedArchiveDigest == pc.ArchiveDigest
		switch {
		case recorded && upstreamDown.Load():
			servedWithoutUpstream.Add(1)
		case upstreamDown.Load():
			return ports.PinnedChart{}, errors.New("get " + c.Chart.Repository + "/index.yaml: status 503")
		}
		return pc, nil
	}).AnyTimes()
	reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: wrapper}, nil).AnyTimes()
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	bundles := serveBundleRegistry(t, pushPass)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: reg, Bundles: bundles.reg}})
	createRuntime(t, runtimeSpec())
	_, live := resolved(t, domain.ReasonResolved)
	first := live.Status.CandidatePlanDigest

	h.stopResolver()
	upstreamDown.Store(true)
	overridden, _ := fixture(t, "1.1.0", v1Synthetic, func(files map[string][]byte) {
		const values = "009-gpu-operator/cluster-values.yaml"
		files[values] = append(files[values], "\naicrTestOverride: only\n"...)
	})
	h.SetBehavior(overridden.Behavior())
	h.runResolver(t)
	ctx := context.Background()
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live))
	live.Spec.Overrides = []aicrv1alpha1.Override{{Component: "gpu-operator", Path: "driver.version", Value: apiextensionsv1.JSON{Raw: []byte(`"580.1"`)}}}
	require.NoError(t, k8s.Update(ctx, live))
	_, live = resolvedFor(t, domain.ReasonResolved, live.Generation)
	assert.NotEqual(t, first, live.Status.CandidatePlanDigest, "the override change has its own plan")
	assert.Positive(t, servedWithoutUpstream.Load(), "its charts came from their records")
}

// TestResolve_APublishLongerThanItsBudgetFinishesOverSeveralReconciles: every upstream chart
// takes longer than a reconcile's publish budget, so each reconcile publishes one and the next
// continues after it (serving the ones before from their records); every chart is fetched
// from its upstream exactly once and the runtime resolves.
func TestResolve_APublishLongerThanItsBudgetFinishesOverSeveralReconciles(t *testing.T) {
	var h *harness
	var mu sync.Mutex
	fetched, fromRecord := map[string]int{}, 0
	reg := mocks.NewMockRegistry(gomock.NewController(t))
	reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c ports.UpstreamChart) (ports.PinnedChart, error) {
		mu.Lock()
		defer mu.Unlock()
		pc := publishedAs(c.Chart)
		if c.RecordedManifestDigest == pc.ManifestDigest {
			fromRecord++
			return pc, nil
		}
		fetched[c.Chart.Name+":"+c.Chart.Version]++
		h.clock.Step(2 * time.Minute)
		return pc, nil
	}).AnyTimes()
	reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: wrapper}, nil).AnyTimes()
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	bundles := serveBundleRegistry(t, pushPass)
	mu.Lock() // the registry double reads h
	h = start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: reg, Bundles: bundles.reg}})
	mu.Unlock()
	createRuntime(t, runtimeSpec())
	resolved(t, domain.ReasonResolved)

	mu.Lock()
	defer mu.Unlock()
	upstream := map[string]int{}
	for _, r := range wantPlan(t, v1Synthetic).Releases {
		if r.Kind == ports.KindUpstream {
			upstream[r.Chart.Name+":"+r.Chart.Version] = 1
		}
	}
	assert.Equal(t, upstream, fetched, "each upstream chart is fetched once")
	assert.Positive(t, fromRecord, "later reconciles serve the charts published before from their records")
}
