package rollout

import (
	"slices"
	"sync"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// maxSuperseded bounds the resourceVersions one remembered write keeps: a cache further behind
// than that is read as it is, and a write on it loses to a conflict, as without the memory.
const maxSuperseded = 16

// ownWrites remembers, per rollout, the object the operator's last write of it returned and
// every resourceVersion of it the operator saw before (all older than that write). A reconcile
// whose cache still serves one of those older versions decides on the written object instead:
// otherwise its next write loses to a conflict and the step waits for a live read and a
// second decision. Versions are compared for equality only,
// as the API asks. The workqueue never hands one rollout to two workers at once.
type ownWrites struct {
	mu     sync.Mutex
	byName map[string]ownWrite
}

// ownWrite is the last object written and the resourceVersions it superseded.
type ownWrite struct {
	obj        *aicrv1alpha1.RuntimeRollout
	superseded []string
}

func newOwnWrites() *ownWrites {
	return &ownWrites{byName: map[string]ownWrite{}}
}

// remember records written, the object a write returned, over the version base it was
// written on.
func (w *ownWrites) remember(base string, written *aicrv1alpha1.RuntimeRollout) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var superseded []string
	if prev, ok := w.byName[written.Name]; ok && prev.obj.UID == written.UID {
		superseded = append(slices.Clone(prev.superseded), prev.obj.ResourceVersion)
	}
	if !slices.Contains(superseded, base) {
		superseded = append(superseded, base)
	}
	if n := len(superseded); n > maxSuperseded {
		superseded = superseded[n-maxSuperseded:] // the oldest go first
	}
	w.byName[written.Name] = ownWrite{obj: written.DeepCopy(), superseded: superseded}
}

// latest returns the object to decide on: a copy of the last write when cached is a version
// it superseded, else cached (the cache caught up with the write, or someone wrote after it),
// and then the write is forgotten.
func (w *ownWrites) latest(cached *aicrv1alpha1.RuntimeRollout) *aicrv1alpha1.RuntimeRollout {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.byName[cached.Name]
	if !ok {
		return cached
	}
	if e.obj.UID == cached.UID && slices.Contains(e.superseded, cached.ResourceVersion) {
		return e.obj.DeepCopy()
	}
	delete(w.byName, cached.Name)
	return cached
}

// forget drops what was remembered of the rollout name (it is gone).
func (w *ownWrites) forget(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byName, name)
}
