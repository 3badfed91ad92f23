package argocd

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// revisions are the fingerprints (revision) of the source an Application's spec asks for and
// of the source Argo CD last compared the live state to, and the digest of its spec (liveDigest).
type revisions struct {
	desired, compared, spec string
}

// revisionsOf computes an Application's revisions.
func revisionsOf(app *argov1.Application) revisions {
	var r revisions
	if app.Spec.Source != nil {
		r.desired = revision(*app.Spec.Source, app.Spec.Destination)
	}
	r.compared = revision(app.Status.Sync.ComparedTo.Source, app.Status.Sync.ComparedTo.Destination)
	r.spec = liveDigest(app)
	return r
}

// revisionMemo keeps each Application's revisions with the resourceVersion they were computed
// at. A revision encodes the source's values canonically, which costs more than the rest of an
// observation, and the engine observes every Application on each List while a rollout changes
// one or two between Lists: an unchanged object has the revisions it had. The memo
// holds the Applications the last List returned and those read since.
type revisionMemo struct {
	mu    sync.Mutex
	byUID map[types.UID]memoEntry
}

type memoEntry struct {
	resourceVersion string
	revisions       revisions
}

// of returns app's revisions, computed again only when app changed since they were.
func (m *revisionMemo) of(app *argov1.Application) revisions {
	if app.UID == "" || app.ResourceVersion == "" {
		return revisionsOf(app)
	}
	m.mu.Lock()
	e, ok := m.byUID[app.UID]
	m.mu.Unlock()
	if ok && e.resourceVersion == app.ResourceVersion {
		return e.revisions
	}
	r := revisionsOf(app)
	m.mu.Lock()
	if m.byUID == nil {
		m.byUID = map[types.UID]memoEntry{}
	}
	m.byUID[app.UID] = memoEntry{resourceVersion: app.ResourceVersion, revisions: r}
	m.mu.Unlock()
	return r
}

// keep forgets every Application but those of apps (a complete List): deleted ones go.
func (m *revisionMemo) keep(apps []argov1.Application) {
	listed := make(map[types.UID]bool, len(apps))
	for i := range apps {
		listed[apps[i].UID] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for uid := range m.byUID {
		if !listed[uid] {
			delete(m.byUID, uid)
		}
	}
}
