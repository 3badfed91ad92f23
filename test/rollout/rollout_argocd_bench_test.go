package rollout_test

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkRolloutInstall128ArgoCD measures the operator's overhead per step of the
// 128-release initial install of BenchmarkRolloutInstall128 on the Argo CD engine: the real
// adapter over Applications, read through the manager's cache, every step driven by watch
// events (no requeue is capped, so nothing polls), with the simulator playing Argo CD's
// application controller, which reports each Application synced and healthy as soon as its
// watch shows it. The overhead is the time from the simulator's report of a step's Application
// (its status write returned) to the operator's write of the next step's Application; its
// median, p95 and mean, the API writes per step besides the Application writes, the Events
// and the requeues and errors per step are those of BenchmarkRolloutInstall128. It also
// reports the Application writes per step, the median time from the operator's Application
// write to the simulator's report (ms/engine-median: the API server, the simulator's watch and
// its status write, none of Argo CD's own work) and the median gap between consecutive
// Application writes (ms/cycle-median: the two together):
//
//	go test ./test/rollout -run '^$' -bench BenchmarkRolloutInstall128ArgoCD -benchtime 1x
func BenchmarkRolloutInstall128ArgoCD(b *testing.B) {
	benchmarkInstalls(b, func() installRun {
		h := newHarness(b, true)
		h.withArgo()
		// No cap on requeues: the steps go on watch events alone, as in the operator, whose
		// fallback poll (10 s after a step started) never comes within a step here.
		h.opts.RequeueCap = 0
		timeline := h.argo.recordTimeline()
		h.start()
		_, writes := h.installSynthetic()
		overhead, engine, cycle := timeline.steps(b, benchReleases)
		for _, gaps := range [][]time.Duration{overhead, engine, cycle} {
			slices.Sort(gaps)
		}
		return installRun{h: h, overhead: overhead, writes: writes, extra: map[string]float64{
			"app-writes/step":  float64(h.argo.writes.Load()) / benchReleases,
			"ms/engine-median": millis(engine[len(engine)/2]),
			"ms/cycle-median":  millis(cycle[len(cycle)/2]),
		}}
	})
}
