package rollout_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

const benchReleases = 128

// Benchmark (run as a test so it runs on the shared control plane): a 128-release initial
// install with an instant engine. It reports the operator's overhead per step (time between
// consecutive engine writes, median and p95) and its API writes per step, then moves a fake
// clock through 10 idle minutes with reconciles forced every minute and expects no write.
// Goals: <= 50 ms per step, <= 3 writes per step.
func TestRolloutBenchmark128(t *testing.T) {
	h := newHarness(t, true)
	h.opts.RequeueCap = time.Millisecond
	var mu sync.Mutex
	var at []time.Time
	h.engine.onWrite = func(string) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
	}
	h.start()
	uid := h.createRuntime(nil)
	plan, err := syntheticPlan(benchReleases, uid)
	require.NoError(t, err)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonNoActivePlan, "")
	h.writes.Store(0)
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	writes := h.writes.Load()

	mu.Lock()
	gaps := make([]time.Duration, 0, len(at))
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	mu.Unlock()
	require.Len(t, gaps, benchReleases-1)
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	median, p95 := gaps[len(gaps)/2], gaps[len(gaps)*95/100]
	perStep := float64(writes) / benchReleases
	t.Logf("BENCH 128-release install: overhead per step median %s p95 %s; API writes %d (%.2f per step)",
		median, p95, writes, perStep)
	assert.LessOrEqual(t, perStep, 3.0, "API writes per step")
	for _, name := range []string{"runtimerollout", "clusterruntime"} {
		sum, count := reconcileTime(t, name)
		t.Logf("BENCH %s: %d reconciles, mean %s", name, int(count), time.Duration(sum/count*float64(time.Second)))
	}

	h.writes.Store(0)
	name, err := configdoc.PlanConfigMapName(plan.Digest)
	require.NoError(t, err)
	for minute := range 10 {
		h.clock.Step(time.Minute)
		before := reconciles(t, "clusterruntime")
		cm := &corev1.ConfigMap{}
		require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: name}, cm))
		patch := client.MergeFrom(cm.DeepCopy())
		cm.Annotations["test/touch"] = fmt.Sprint(minute)
		require.NoError(t, k8s.Patch(context.Background(), cm, patch))
		require.Eventually(t, func() bool { return reconciles(t, "clusterruntime") > before }, waitFor, tick)
	}
	t.Logf("BENCH 10 idle minutes on the fake clock: %d API writes", h.writes.Load())
	assert.Zero(t, h.writes.Load(), "an idle runtime writes nothing")
}

// reconciles reads controller-runtime's reconcile counter of a controller.
func reconciles(t *testing.T, controllerName string) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	var total float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controllerName {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}

// syntheticPlan is a plan of n independent releases for runtimeUID.
func syntheticPlan(n int, runtimeUID string) (*domain.Plan, error) {
	p := &domain.Plan{SchemaVersion: domain.PlanSchemaVersion, RuntimeUID: runtimeUID, Source: domain.SourceResolved,
		AICRVersion: "1.0.0", HasRecipe: true}
	for i := range n {
		id := fmt.Sprintf("release-%03d", i)
		p.Releases = append(p.Releases, domain.Release{
			ID: id, Namespace: "components", Component: id, Kind: ports.KindUpstream,
			Chart: ports.ChartSource{Repository: "oci://registry.example.com/charts", Name: id, Version: "1.0.0",
				ManifestDigest: "sha256:" + zeros},
			Values: map[string]any{"replicas": i},
		})
		d, err := domain.Digest(p.Releases[i].Values)
		if err != nil {
			return nil, err
		}
		p.Releases[i].ValuesDigest = d
	}
	var err error
	p.Digest, err = domain.DesiredStateDigest(p.Releases)
	return p, err
}

// reconcileTime reads controller-runtime's reconcile time histogram of a controller.
func reconcileTime(t *testing.T, controllerName string) (sum, count float64) {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_time_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controllerName {
					sum += m.GetHistogram().GetSampleSum()
					count += float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
	}
	return sum, count
}
