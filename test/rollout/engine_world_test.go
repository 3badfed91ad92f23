package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/memengine"
)

// engineWorld is the deployment engine a test rolls out on, with the controller that syncs it:
// what the tests that judge step timing change and read, on either engine.
type engineWorld interface {
	// setInstant makes the engine's later writes synced and healthy at once (true) or only on
	// settle (false); it leaves the engine objects as they are.
	setInstant(instant bool)
	// settle makes every engine object synced and healthy (degraded when degrade named it)
	// and finishes every removal.
	settle(tb testing.TB)
	// degrade makes the release settle Degraded from now on.
	degrade(ref ports.ReleaseRef)
	// writeCount is the operator's engine writes so far: one per Install, Upgrade or Remove.
	writeCount() int
	// onWrite runs hook, with the write's context, after each engine write that starts a step
	// (on Argo CD the cascade finalizer a Remove sets before its Delete); nil runs nothing.
	onWrite(hook func(ctx context.Context))
	// live is every engine object of the operator by release ID, read without a cache.
	live(tb testing.TB) map[string]ports.ReleaseStatus
}

// engineKind names the engine a harness runs on.
type engineKind string

const (
	// onMemory is the in-memory engine: a write and the next read in the same pass.
	onMemory engineKind = "memengine"
	// onArgoCD is the Argo CD adapter reading Applications through the manager's cache, which
	// lags its writes, with the stand-in application controller (test/argocdsim).
	onArgoCD engineKind = "argocd"
)

// onEachEngine runs test on the in-memory engine and on the Argo CD engine, each a subtest of
// its own named by the engine (go test -run 'TestX/argocd' selects one), with a harness whose
// engine is instant or not. On the Argo CD engine it also fails the test when an operator
// started a step before the previous step's Application was ready at the spec written for it.
func onEachEngine(t *testing.T, instant bool, test func(t *testing.T, h *harness)) {
	t.Helper()
	for _, kind := range []engineKind{onMemory, onArgoCD} {
		t.Run(string(kind), func(t *testing.T) {
			h := newHarness(t, instant)
			if kind == onArgoCD {
				h.withArgo()
				h.argo.setInstant(instant)
				h.argo.checkOrder(t)
			}
			test(t, h)
		})
	}
}

// memWorld is the in-memory engine as an engineWorld.
type memWorld struct{ e *memengine.Engine }

func (w memWorld) setInstant(instant bool) {
	w.e.Mu.Lock()
	defer w.e.Mu.Unlock()
	w.e.Instant = instant
}

func (w memWorld) settle(testing.TB) { w.e.Settle() }

func (w memWorld) degrade(ref ports.ReleaseRef) {
	w.e.Mu.Lock()
	defer w.e.Mu.Unlock()
	w.e.Degraded[ref.ID] = true
}

func (w memWorld) onWrite(hook func(ctx context.Context)) {
	w.e.Mu.Lock()
	defer w.e.Mu.Unlock()
	w.e.OnWrite = nil
	if hook != nil {
		w.e.OnWrite = func(ctx context.Context, _ string) { hook(ctx) }
	}
}

func (w memWorld) writeCount() int { return w.e.WriteCount() }

func (w memWorld) live(tb testing.TB) map[string]ports.ReleaseStatus {
	live, err := w.e.List(context.Background())
	require.NoError(tb, err)
	return byID(live)
}

// byID indexes engine objects by release ID.
func byID(live []ports.ReleaseStatus) map[string]ports.ReleaseStatus {
	out := map[string]ports.ReleaseStatus{}
	for _, s := range live {
		out[s.Ref.ID] = s
	}
	return out
}
