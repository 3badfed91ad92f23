package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// The Argo CD world as an engineWorld: the simulator settles an Application as its watch shows
// it, Healthy when instant and Progressing (synced, workloads not ready) otherwise, until
// settle makes each Healthy; the engine objects are read back through the adapter without a
// cache.

func (w *argoWorld) setInstant(instant bool) {
	if instant {
		w.sim.SetDefault(argocdsim.Healthy)
		return
	}
	w.sim.SetDefault(argocdsim.Progressing)
}

func (w *argoWorld) settle(tb testing.TB) {
	ctx := context.Background()
	live, err := w.reader.List(ctx)
	require.NoError(tb, err)
	w.mu.Lock()
	degraded := maps.Clone(w.degraded)
	w.mu.Unlock()
	for _, st := range live {
		if !degraded[st.Ref] {
			w.sim.SetMode(st.Ref, argocdsim.Healthy)
		}
		if _, err := w.sim.Settle(ctx, st.Ref); !apierrors.IsNotFound(err) {
			require.NoError(tb, err, "settle %s", st.Ref)
		}
	}
}

func (w *argoWorld) degrade(ref ports.ReleaseRef) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.degraded[ref] = true
	w.sim.SetMode(ref, argocdsim.Degraded)
}

func (w *argoWorld) onWrite(hook func(ctx context.Context)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hook = hook
}

func (w *argoWorld) writeCount() int { return int(w.writes.Load()) }

func (w *argoWorld) live(tb testing.TB) map[string]ports.ReleaseStatus {
	live, err := w.reader.List(context.Background())
	require.NoError(tb, err)
	return byID(live)
}

// checkOrder makes the world check, before each operator write that starts a step on another
// Application, that the Application of the step before is ready at the spec the operator wrote
// for it (synced and healthy), or gone after a Remove, and fails t at its end otherwise: a step
// judged ready from a stale cache read starts the next one too early.
func (w *argoWorld) checkOrder(t *testing.T) {
	o := &stepOrder{reader: w.reader}
	w.mu.Lock()
	w.order = o
	w.mu.Unlock()
	t.Cleanup(func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		assert.Empty(t, o.violations, "every step starts after the step before is ready")
		assert.Zero(t, w.createdAgain.Load(), "no Application is created again because the cache had not seen it")
	})
}

// starting checks the step order before the operator writes app, when checkOrder asked for it.
func (w *argoWorld) starting(ctx context.Context, app *argov1.Application) {
	w.mu.Lock()
	order := w.order
	w.mu.Unlock()
	if order != nil {
		order.starting(ctx, app)
	}
}

// stepOrder follows the operator's Application writes step by step.
type stepOrder struct {
	reader *argocd.Engine

	mu sync.Mutex
	// last is the Application the operator wrote last, lastSpec its spec digest as written
	// and removed whether that write was its Delete.
	last       ports.ReleaseRef
	lastSpec   string
	removed    bool
	violations []string
}

// refOfApplication is the release of the Application name "<namespace>.<id>"
// (argocd.ApplicationName).
func refOfApplication(name string) ports.ReleaseRef {
	ns, id, _ := strings.Cut(name, ".")
	return ports.ReleaseRef{Namespace: ns, ID: id}
}

// starting records a violation when the operator is about to write app, another Application than
// the last one it wrote, while that one is not ready.
func (o *stepOrder) starting(ctx context.Context, app *argov1.Application) {
	ref := refOfApplication(app.Name)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.last == (ports.ReleaseRef{}) || o.last == ref {
		return
	}
	st, err := o.reader.Status(ctx, o.last)
	switch {
	case o.removed && errors.Is(err, ports.ErrTargetNotFound):
	case o.removed:
		o.violations = append(o.violations, fmt.Sprintf("%s written while %s is still being removed (%v)", ref, o.last, err))
	case err != nil:
		o.violations = append(o.violations, fmt.Sprintf("%s written while %s cannot be read: %v", ref, o.last, err))
	case !st.ReadyAt(o.lastSpec):
		o.violations = append(o.violations, fmt.Sprintf("%s written while %s is not ready at its written spec: %+v", ref, o.last, st))
	}
}

// wrote records the operator's write of app: its Delete (deleted) or its spec as now stored.
func (o *stepOrder) wrote(ctx context.Context, app *argov1.Application, deleted bool) {
	ref := refOfApplication(app.Name)
	spec := ""
	if !deleted {
		st, err := o.reader.Status(ctx, ref)
		if err == nil {
			spec = st.SpecDigest
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.last, o.lastSpec, o.removed = ref, spec, deleted
}
