package memengine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/enginetest"
	"github.com/NVIDIA/aicr/test/memengine"
)

// TestConformance runs the engine conformance suite against the in-memory engine, so the suites
// that stand it in for Argo CD rely on nothing the port's contract (and the Argo CD adapter,
// which runs the same suite) does not promise.
func TestConformance(t *testing.T) {
	t.Parallel()
	enginetest.Run(t, harness{backend: memengine.New(clock.New(), false)})
}

// harness plays the engine's controller over the objects of one backend engine; every
// instance is a Sibling of it, with cascading removal as Argo CD's resources finalizer does.
type harness struct{ backend *memengine.Engine }

func (h harness) NewInstance(*testing.T) enginetest.Instance {
	e := h.backend.Sibling()
	e.Mu.Lock()
	e.Cascade = true
	e.Mu.Unlock()
	return enginetest.Instance{Engine: e, Writes: func() int {
		writes, _, suspensions := e.Counts()
		return writes + suspensions
	}}
}

// Observe sets what the engine's controller reports for the object of ref.
func (h harness) Observe(_ context.Context, ref ports.ReleaseRef, o enginetest.Observation) error {
	h.backend.Mu.Lock()
	defer h.backend.Mu.Unlock()
	st, ok := h.backend.Objs[ref]
	if !ok {
		return fmt.Errorf("observe %s: %w", ref, ports.ErrTargetNotFound)
	}
	st.Health, st.Operation, st.Message = o.Health, o.Operation, o.Message
	switch {
	case o.Synced:
		st.SyncedRevision = st.DesiredRevision
	case st.SyncedRevision == st.DesiredRevision:
		st.SyncedRevision = ""
	}
	if st.Message == "" && (o.Health == ports.HealthDegraded || o.Operation == ports.OperationFailed) {
		st.Message = fmt.Sprintf("health %s, last operation %s", o.Health, o.Operation)
	}
	h.backend.Objs[ref] = st
	return nil
}

// CreateForeign adds an object of ref that records no owner.
func (h harness) CreateForeign(_ context.Context, ref ports.ReleaseRef) error {
	h.backend.Mu.Lock()
	defer h.backend.Mu.Unlock()
	h.backend.Objs[ref] = ports.ReleaseStatus{Ref: ref, Health: ports.HealthHealthy}
	return nil
}

// CascadeGuarded reports whether the object of ref is being removed with its resources.
func (h harness) CascadeGuarded(_ context.Context, ref ports.ReleaseRef) (bool, error) {
	h.backend.Mu.Lock()
	defer h.backend.Mu.Unlock()
	st, ok := h.backend.Objs[ref]
	return ok && st.Removing, nil
}

// CompleteRemoval deletes the object of ref, as the end of a cascading delete does.
func (h harness) CompleteRemoval(_ context.Context, ref ports.ReleaseRef) error {
	h.backend.Mu.Lock()
	defer h.backend.Mu.Unlock()
	delete(h.backend.Objs, ref)
	delete(h.backend.Recorded, ref)
	return nil
}

// StoredValues returns the values Apply recorded for ref.
func (h harness) StoredValues(_ context.Context, ref ports.ReleaseRef) (map[string]any, error) {
	h.backend.Mu.Lock()
	defer h.backend.Mu.Unlock()
	spec, ok := h.backend.Recorded[ref]
	if !ok {
		return nil, fmt.Errorf("values of %s: %w", ref, ports.ErrTargetNotFound)
	}
	return spec.Values, nil
}
