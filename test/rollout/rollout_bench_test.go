package rollout_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// benchReleases is the most releases a plan holds (PLAN-2); the largest transition the API
// admits replaces all of them: 128 Remove and 128 Install steps (RO-5: at most 256 steps).
const benchReleases = 128

// install128 runs a 128-release initial install with an instant engine on a new harness and
// returns the harness, the plan, the gaps between consecutive engine writes (the operator's
// overhead per step), sorted, and the API writes the install took.
func install128(tb testing.TB) (*harness, *domain.Plan, []time.Duration, int64) {
	h := newHarness(tb, true)
	h.opts.RequeueCap = time.Millisecond
	engineWrites := recordEngineWrites(h)
	h.start()
	plan, writes := h.installSynthetic()
	gaps := engineWrites.gaps()
	require.Len(tb, gaps, benchReleases-1)
	slices.Sort(gaps)
	return h, plan, gaps, writes
}

// installSynthetic creates the runtime on h's running operator, selects a plan of
// benchReleases independent releases, waits until the runtime is Ready on it and returns the
// plan and the operator's API writes from the selection on (the engine's own not counted).
func (h *harness) installSynthetic() (*domain.Plan, int64) {
	h.t.Helper()
	uid := h.createRuntime(nil)
	plan, err := syntheticPlan(benchReleases, uid)
	require.NoError(h.t, err)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonNoActivePlan, "")
	h.writes.Store(0)
	if h.argo != nil {
		h.argo.writes.Store(0)
	}
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	// The install is awaited on the operator's cache: reading the 128-step rollout from the API
	// server every tick would load the server the operator writes to with the test's own reads.
	cached := &aicrv1alpha1.RuntimeRollout{}
	h.waitCached(client.ObjectKey{Name: ro.Name}, cached, func() bool { return cached.Labels[aicrv1alpha1.LabelOutcome] != "" },
		"the install never ended")
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	return plan, h.writes.Load()
}

// engineWrites records when the engine is written to: the gaps between writes are the
// operator's overhead per step with an instant engine.
type engineWrites struct {
	mu sync.Mutex
	at []time.Time
}

// recordEngineWrites makes h's engine record the time of each write; call it before h.start.
func recordEngineWrites(h *harness) *engineWrites {
	w := &engineWrites{}
	h.engine.OnWrite = func(context.Context, string) {
		w.mu.Lock()
		w.at = append(w.at, time.Now())
		w.mu.Unlock()
	}
	return w
}

// reset forgets the writes recorded so far.
func (w *engineWrites) reset() {
	w.mu.Lock()
	w.at = nil
	w.mu.Unlock()
}

// gaps returns the time between consecutive writes, in the order they happened.
func (w *engineWrites) gaps() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	gaps := make([]time.Duration, 0, len(w.at))
	for i := 1; i < len(w.at); i++ {
		gaps = append(gaps, w.at[i].Sub(w.at[i-1]))
	}
	return gaps
}

// A 128-release initial install costs at most 3 API writes per step, and an idle runtime
// writes nothing over 10 minutes on the fake clock with reconciles forced every minute
// (OPS: write budget).
func TestRolloutWriteBudget128(t *testing.T) {
	h, plan, _, writes := install128(t)
	assert.LessOrEqual(t, float64(writes)/benchReleases, 3.0, "API writes per step")

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
	assert.Zero(t, h.writes.Load(), "an idle runtime writes nothing")
}

// BenchmarkRolloutInstall128 measures the operator's overhead per step of a 128-release
// initial install with an instant engine (goal: median <= 10 ms, p95 <= 25 ms), and
// its mean: the gaps are of two kinds, the steps one pass judges and starts at once, and the
// steps after a status write. It also reports the API writes per step (goal: <= 3) and, besides
// them, the Events per step its recorder sends (step started, step succeeded), and the
// rollout controller's reconciles per step that ended in a requeue (a conflict backed off, a
// wait; there is no retry loop) or an error, on the package's control plane:
//
//	go test ./test/rollout -run '^$' -bench 'BenchmarkRolloutInstall128$' -benchtime 1x
//
// The overhead is the gap between two consecutive engine writes: the in-memory engine reports
// a release healthy as it writes it, so that gap is also the time from the step's release
// reported healthy to the next step's write (BenchmarkRolloutInstall128ArgoCD's overhead).
func BenchmarkRolloutInstall128(b *testing.B) {
	benchmarkInstalls(b, func() installRun {
		h, _, gaps, writes := install128(b)
		return installRun{h: h, overhead: gaps, writes: writes}
	})
}

// installRun is what one benchmarked install measured: its harness, the operator's overhead
// of each step (sorted), its API writes, and further figures reported by unit.
type installRun struct {
	h        *harness
	overhead []time.Duration
	writes   int64
	extra    map[string]float64
}

// benchmarkInstalls runs install b.N times and reports, averaged over the runs, the overhead
// per step (median, p95 and mean in milliseconds), the API writes and the Events per step, the
// rollout controller's reconciles per step that ended in a requeue or an error, and the
// install's extra figures.
func benchmarkInstalls(b *testing.B, install func() installRun) {
	sums := map[string]float64{}
	for range b.N {
		before := reconcileResults(b, "runtimerollout")
		run := install()
		after := reconcileResults(b, "runtimerollout")
		gaps := run.overhead
		sums["ms/step-median"] += millis(gaps[len(gaps)/2])
		sums["ms/step-p95"] += millis(gaps[len(gaps)*95/100])
		sums["ms/step-mean"] += meanMillis(gaps)
		sums["writes/step"] += float64(run.writes) / benchReleases
		sums["events/step"] += float64(rolloutEvents(run.h)) / benchReleases
		sums["requeues/step"] += (after["requeue"] + after["requeue_after"] - before["requeue"] - before["requeue_after"]) / benchReleases
		sums["errors/step"] += (after["error"] - before["error"]) / benchReleases
		for unit, v := range run.extra {
			sums[unit] += v
		}
		run.h.stop()
	}
	for unit, sum := range sums {
		b.ReportMetric(sum/float64(b.N), unit)
	}
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// meanMillis is the mean of gaps in milliseconds.
func meanMillis(gaps []time.Duration) float64 {
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	return millis(sum) / float64(len(gaps))
}

// rolloutEvents waits for the RolloutEnded Event of h's one rollout (Events are sent
// asynchronously, in order) and returns the Events recorded on it, repeats counted.
func rolloutEvents(h *harness) int {
	h.t.Helper()
	items := h.rollouts()
	require.Len(h.t, items, 1)
	uid := string(items[0].UID)
	h.waitEvent(uid, corev1.EventTypeNormal, domain.EventRolloutEnded.String(), "")
	n := 0
	for _, e := range h.events(uid) {
		n += int(max(e.Count, 1))
	}
	return n
}

// reconciles reads controller-runtime's reconcile counter of a controller.
func reconciles(t testing.TB, controllerName string) float64 {
	t.Helper()
	var total float64
	for _, n := range reconcileResults(t, controllerName) {
		total += n
	}
	return total
}

// reconcileResults reads controller-runtime's reconcile counter of a controller by result
// (success, error, requeue, requeue_after).
func reconcileResults(t testing.TB, controllerName string) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var controller, result string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "controller":
					controller = l.GetValue()
				case "result":
					result = l.GetValue()
				}
			}
			if controller == controllerName {
				out[result] += m.GetCounter().GetValue()
			}
		}
	}
	return out
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
