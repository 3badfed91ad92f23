// Package memengine is an in-memory ports.DeploymentEngine for suites that exercise the
// operator's controllers without a deployment engine: it plays the engine and its controller
// (an Apply is synced and healthy at once when Instant, otherwise on Settle) and counts the
// writes that changed an engine object. It models no Argo CD behaviour beyond the port's
// contract, which it is held to by the engine conformance suite as the Argo CD adapter is
// (ownership, idempotent Apply and Adopt, ErrForeignObject for an object of another runtime or
// of none, ErrTargetNotFound, no operation until the engine syncs, ErrSuspensionRefused while a
// sync operation runs, a write failing once its context is done);
// suites that need Argo CD's objects use adapters/argocd with test/argocdsim. Remove deletes the object at once unless Cascade is set,
// when it marks the object Removing and Settle deletes it, as a cascading delete that waits for
// the release's live objects does.
package memengine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/NVIDIA/aicr/ports"
)

// Engine is an in-memory DeploymentEngine playing the engine and its controller. With
// Instant set, an Apply is synced and healthy at once; otherwise Settle makes it so. It counts
// the writes that changed an engine object, and OnWrite runs after each (kill-and-restart).
// Tests change its fields holding Mu.
type Engine struct {
	// Mu guards every field; engines of one Sibling family share it.
	Mu    *sync.Mutex
	clock ports.Clock
	// Objs are the engine objects by release.
	Objs map[ports.ReleaseRef]ports.ReleaseStatus
	// Recorded are the specs Apply recorded by release.
	Recorded map[ports.ReleaseRef]ports.ReleaseSpec
	// Instant settles an Apply at once.
	Instant bool
	// Degraded releases settle Degraded instead of Healthy.
	Degraded map[string]bool
	// Missing makes Check report the engine's API missing.
	Missing bool
	// Unreachable, when set, is what Check, Status and List return: a transient failure such
	// as an engine API that cannot be reached.
	Unreachable error
	// Cascade makes Remove mark the object Removing; Settle deletes it.
	Cascade bool
	// Writes counts the Apply, Adopt and Remove calls that changed an engine object.
	Writes int
	// Removes counts the Remove calls that deleted an engine object.
	Removes int
	// Suspensions counts the Suspend calls that changed an engine object's automation.
	Suspensions int
	// OnWrite runs after each Apply or Remove that wrote, outside Mu, with the write's context.
	OnWrite func(ctx context.Context, id string)
}

// New returns an empty engine taking time from clock.
func New(clock ports.Clock, instant bool) *Engine {
	return &Engine{Mu: &sync.Mutex{}, clock: clock, Objs: map[ports.ReleaseRef]ports.ReleaseStatus{},
		Recorded: map[ports.ReleaseRef]ports.ReleaseSpec{}, Instant: instant, Degraded: map[string]bool{}}
}

var _ ports.DeploymentEngine = (*Engine)(nil)

// Sibling returns another engine over the same engine objects (one backend, as two operators
// share one Argo CD), with its own settings and write counts.
func (e *Engine) Sibling() *Engine {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	return &Engine{Mu: e.Mu, clock: e.clock, Objs: e.Objs, Recorded: e.Recorded, Instant: e.Instant, Degraded: map[string]bool{}}
}

// Check reports Unreachable when set, ErrEngineMissing while Missing.
func (e *Engine) Check(context.Context) error {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.Unreachable != nil {
		return e.Unreachable
	}
	if e.Missing {
		return fmt.Errorf("application kind not served: %w", ports.ErrEngineMissing)
	}
	return nil
}

// Revision is a short digest of what an Apply asks for.
func Revision(spec ports.ReleaseSpec) string {
	raw, _ := json.Marshal([]any{spec.Chart, spec.ContentDigest, spec.Values, spec.Policy, spec.Owner.PlanDigest})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// SpecDigest is a digest of what an Apply of spec asks for, its owner left out; Apply records
// it as the object's SpecDigest, and a test that edits an object by hand changes it.
func SpecDigest(spec ports.ReleaseSpec) string {
	raw, _ := json.Marshal([]any{spec.Chart, spec.ContentDigest, spec.Values, spec.Policy})
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// SpecDigest returns the package's SpecDigest of spec.
func (e *Engine) SpecDigest(spec ports.ReleaseSpec) (string, error) { return SpecDigest(spec), nil }

// Unplanned returns the objects of no planned release, by release.
func (e *Engine) Unplanned(_ context.Context, planned []ports.ReleaseRef) ([]string, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	var out []string
	for ref := range e.Objs {
		if !slices.Contains(planned, ref) {
			out = append(out, ref.String())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Apply records spec; ErrForeignObject for an object of another runtime. Like every write, it
// fails with the context's error once ctx is done, as an API request would.
func (e *Engine) Apply(ctx context.Context, spec ports.ReleaseSpec) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Mu.Lock()
	cur, exists := e.Objs[spec.Ref]
	if exists && cur.Owner.RuntimeUID != spec.Owner.RuntimeUID {
		e.Mu.Unlock()
		return ports.ErrForeignObject
	}
	rev := Revision(spec)
	if exists && cur.DesiredRevision == rev && cur.Owner == spec.Owner && cur.SpecDigest == SpecDigest(spec) {
		e.Mu.Unlock()
		return nil
	}
	st := ports.ReleaseStatus{Ref: spec.Ref, Owner: spec.Owner, DesiredRevision: rev, SyncedRevision: cur.SyncedRevision,
		Health: ports.HealthProgressing, LastSyncAt: e.clock.Now(), SpecDigest: SpecDigest(spec)}
	if e.Instant {
		e.settleLocked(&st)
	}
	e.Objs[spec.Ref] = st
	e.Recorded[spec.Ref] = spec
	e.Writes++
	hook := e.OnWrite
	e.Mu.Unlock()
	if hook != nil {
		hook(ctx, spec.Ref.ID)
	}
	return nil
}

func (e *Engine) settleLocked(st *ports.ReleaseStatus) {
	st.SyncedRevision, st.Operation, st.Health = st.DesiredRevision, ports.OperationSucceeded, ports.HealthHealthy
	if e.Degraded[st.Ref.ID] {
		st.Health = ports.HealthDegraded
	}
}

// Settle makes every engine object synced and healthy (or degraded), and deletes the objects
// being removed.
func (e *Engine) Settle() {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for ref, st := range e.Objs {
		if st.Removing {
			delete(e.Objs, ref)
			delete(e.Recorded, ref)
			continue
		}
		e.settleLocked(&st)
		e.Objs[ref] = st
	}
}

// Adopt moves an object of runtime prev to owner.
func (e *Engine) Adopt(ctx context.Context, ref ports.ReleaseRef, prev string, owner ports.ReleaseOwner) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Mu.Lock()
	defer e.Mu.Unlock()
	st, ok := e.Objs[ref]
	switch {
	case !ok:
		return ports.ErrTargetNotFound
	case st.Owner == owner && owner.RuntimeUID != "":
		return nil // adopted already
	case st.Owner.RuntimeUID != prev:
		return ports.ErrForeignObject
	}
	st.Owner = owner
	e.Objs[ref] = st
	if spec, ok := e.Recorded[ref]; ok {
		spec.Owner = owner
		e.Recorded[ref] = spec
	}
	e.Writes++
	return nil
}

// Specs returns what Apply recorded for the objects of an owner, by namespace and ID; an object
// seeded without Apply has only its Ref and Owner.
func (e *Engine) Specs(context.Context) ([]ports.ReleaseSpec, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	out := make([]ports.ReleaseSpec, 0, len(e.Objs))
	for ref, st := range e.Objs {
		if st.Owner.RuntimeUID == "" {
			continue // not the operator's
		}
		spec, ok := e.Recorded[ref]
		if !ok {
			spec = ports.ReleaseSpec{Ref: ref, Position: -1}
		}
		spec.Owner = st.Owner
		out = append(out, spec)
	}
	sort.Slice(out, func(i, j int) bool { return refLess(out[i].Ref, out[j].Ref) })
	return out, nil
}

// refLess orders releases by namespace, then ID.
func refLess(a, b ports.ReleaseRef) bool {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.ID, b.ID)) < 0
}

// Status reports one object; ErrTargetNotFound when it does not exist, Unreachable when set.
func (e *Engine) Status(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.Unreachable != nil {
		return ports.ReleaseStatus{}, e.Unreachable
	}
	st, ok := e.Objs[ref]
	if !ok {
		return ports.ReleaseStatus{}, ports.ErrTargetNotFound
	}
	return st, nil
}

// List reports every object of an owner (one without is not the operator's), by namespace and
// ID; Unreachable when set.
func (e *Engine) List(context.Context) ([]ports.ReleaseStatus, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.Unreachable != nil {
		return nil, e.Unreachable
	}
	out := make([]ports.ReleaseStatus, 0, len(e.Objs))
	for _, st := range e.Objs {
		if st.Owner.RuntimeUID != "" { // an object without an owner is not the operator's
			out = append(out, st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return refLess(out[i].Ref, out[j].Ref) })
	return out, nil
}

// Remove deletes an object, or with Cascade marks it Removing for Settle to delete; a missing
// object, or one already being removed, is not an error and no further write.
func (e *Engine) Remove(ctx context.Context, ref ports.ReleaseRef, owner ports.ReleaseOwner) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Mu.Lock()
	st, ok := e.Objs[ref]
	if ok && st.Owner.RuntimeUID != owner.RuntimeUID {
		e.Mu.Unlock()
		return ports.ErrForeignObject
	}
	if !ok || st.Removing {
		e.Mu.Unlock()
		return nil
	}
	if e.Cascade {
		st.Removing = true
		e.Objs[ref] = st
	} else {
		delete(e.Objs, ref)
		delete(e.Recorded, ref)
	}
	e.Writes++
	e.Removes++
	hook := e.OnWrite
	e.Mu.Unlock()
	if hook != nil {
		hook(ctx, ref.ID)
	}
	return nil
}

// Suspend records automation off or on for an object of owner; suspending an object whose sync
// operation runs is refused (ErrSuspensionRefused), as the port's contract says.
func (e *Engine) Suspend(ctx context.Context, ref ports.ReleaseRef, owner ports.ReleaseOwner, suspend bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Mu.Lock()
	defer e.Mu.Unlock()
	st, ok := e.Objs[ref]
	switch {
	case !ok:
		return ports.ErrTargetNotFound
	case st.Owner.RuntimeUID != owner.RuntimeUID:
		return ports.ErrForeignObject
	case st.Suspended == suspend:
		return nil
	case suspend && st.Operation == ports.OperationRunning:
		return fmt.Errorf("%s is syncing: %w", ref, ports.ErrSuspensionRefused)
	}
	st.Suspended = suspend
	e.Objs[ref] = st
	e.Suspensions++
	return nil
}

// Counts returns Writes, Removes and Suspensions.
func (e *Engine) Counts() (writes, removes, suspensions int) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	return e.Writes, e.Removes, e.Suspensions
}

// WriteCount returns Writes.
func (e *Engine) WriteCount() int {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	return e.Writes
}

// ReadsItsWrites reports that Status and List show every write at once: the engine is memory
// guarded by Mu (ports.ConsistentReads).
func (e *Engine) ReadsItsWrites() bool { return true }
