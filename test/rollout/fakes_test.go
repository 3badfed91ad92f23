package rollout_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/nvidia/aicr-operator/ports"
)

// fakeEngine is an in-memory DeploymentEngine playing the engine and its controller. With
// instant set, an Apply is synced and healthy at once; otherwise settle makes it so. It counts
// the writes that changed an engine object, and onWrite runs after each (kill-and-restart).
type fakeEngine struct {
	mu       sync.Mutex
	clock    ports.Clock
	objs     map[ports.ReleaseRef]ports.ReleaseStatus
	specs    map[ports.ReleaseRef]ports.ReleaseSpec
	instant  bool
	degraded map[string]bool
	missing  bool
	writes   int
	onWrite  func(id string)
}

func newFakeEngine(clock ports.Clock, instant bool) *fakeEngine {
	return &fakeEngine{clock: clock, objs: map[ports.ReleaseRef]ports.ReleaseStatus{},
		specs: map[ports.ReleaseRef]ports.ReleaseSpec{}, instant: instant, degraded: map[string]bool{}}
}

func (e *fakeEngine) Check(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.missing {
		return fmt.Errorf("application kind not served: %w", ports.ErrEngineMissing)
	}
	return nil
}

func revision(spec ports.ReleaseSpec) string {
	raw, _ := json.Marshal([]any{spec.Chart, spec.ContentDigest, spec.Values, spec.Policy, spec.Owner.PlanDigest})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

func (e *fakeEngine) Apply(_ context.Context, spec ports.ReleaseSpec) error {
	e.mu.Lock()
	cur, exists := e.objs[spec.Ref]
	if exists && cur.Owner.RuntimeUID != spec.Owner.RuntimeUID {
		e.mu.Unlock()
		return ports.ErrForeignObject
	}
	rev := revision(spec)
	if exists && cur.DesiredRevision == rev && cur.Owner == spec.Owner {
		e.mu.Unlock()
		return nil
	}
	st := ports.ReleaseStatus{Ref: spec.Ref, Owner: spec.Owner, DesiredRevision: rev, SyncedRevision: cur.SyncedRevision,
		Health: ports.HealthProgressing, Operation: ports.OperationRunning, LastSyncAt: e.clock.Now()}
	if e.instant {
		e.settleLocked(&st)
	}
	e.objs[spec.Ref] = st
	e.specs[spec.Ref] = spec
	e.writes++
	hook := e.onWrite
	e.mu.Unlock()
	if hook != nil {
		hook(spec.Ref.ID)
	}
	return nil
}

func (e *fakeEngine) settleLocked(st *ports.ReleaseStatus) {
	st.SyncedRevision, st.Operation, st.Health = st.DesiredRevision, ports.OperationSucceeded, ports.HealthHealthy
	if e.degraded[st.Ref.ID] {
		st.Health = ports.HealthDegraded
	}
}

// settle makes every engine object synced and healthy (or degraded).
func (e *fakeEngine) settle() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ref, st := range e.objs {
		e.settleLocked(&st)
		e.objs[ref] = st
	}
}

func (e *fakeEngine) Adopt(_ context.Context, ref ports.ReleaseRef, prev string, owner ports.ReleaseOwner) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.objs[ref]
	switch {
	case !ok:
		return ports.ErrTargetNotFound
	case st.Owner.RuntimeUID != prev:
		return ports.ErrForeignObject
	}
	st.Owner = owner
	e.objs[ref] = st
	if spec, ok := e.specs[ref]; ok {
		spec.Owner = owner
		e.specs[ref] = spec
	}
	e.writes++
	return nil
}

// Specs returns what Apply recorded; an object seeded without Apply has only its Ref and Owner.
func (e *fakeEngine) Specs(context.Context) ([]ports.ReleaseSpec, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]ports.ReleaseSpec, 0, len(e.objs))
	for ref, st := range e.objs {
		spec, ok := e.specs[ref]
		if !ok {
			spec = ports.ReleaseSpec{Ref: ref, Position: -1}
		}
		spec.Owner = st.Owner
		out = append(out, spec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref.String() < out[j].Ref.String() })
	return out, nil
}

func (e *fakeEngine) Status(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.objs[ref]
	if !ok {
		return ports.ReleaseStatus{}, ports.ErrTargetNotFound
	}
	return st, nil
}

func (e *fakeEngine) List(context.Context) ([]ports.ReleaseStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]ports.ReleaseStatus, 0, len(e.objs))
	for _, st := range e.objs {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref.String() < out[j].Ref.String() })
	return out, nil
}

func (e *fakeEngine) Remove(_ context.Context, ref ports.ReleaseRef, _ ports.ReleaseOwner) error {
	e.mu.Lock()
	if _, ok := e.objs[ref]; !ok {
		e.mu.Unlock()
		return nil
	}
	delete(e.objs, ref)
	delete(e.specs, ref)
	e.writes++
	hook := e.onWrite
	e.mu.Unlock()
	if hook != nil {
		hook(ref.ID)
	}
	return nil
}

func (e *fakeEngine) Suspend(_ context.Context, ref ports.ReleaseRef, owner ports.ReleaseOwner, suspend bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.objs[ref]
	switch {
	case !ok:
		return ports.ErrTargetNotFound
	case st.Owner.RuntimeUID != owner.RuntimeUID:
		return ports.ErrForeignObject
	}
	st.Suspended = suspend
	e.objs[ref] = st
	return nil
}

func (e *fakeEngine) writeCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.writes
}
