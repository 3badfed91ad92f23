package argocd

import (
	"fmt"
	"sync"

	"k8s.io/client-go/discovery"
)

// Watcher starts the controller's Application watch the first time the
// Application kind is served (ENG-4): the operator starts without Argo CD's
// CRDs and watches Applications as soon as they appear, without a restart.
//
// The controller calls Ensure on every reconcile that needs the engine (the
// ClusterRuntime reconcile requeues while Check reports ErrEngineMissing);
// start typically adds a source.Kind for NewApplicationObject to a running
// controller. Ensure is safe for concurrent use and calls start at most
// once successfully.
type Watcher struct {
	dc      discovery.DiscoveryInterface
	start   func() error
	mu      sync.Mutex
	started bool
}

// NewWatcher returns a Watcher asking dc (not a caching discovery client)
// and calling start once the kind is served.
func NewWatcher(dc discovery.DiscoveryInterface, start func() error) *Watcher {
	return &Watcher{dc: dc, start: start}
}

// Ensure starts the watch when the Application kind is served and the watch
// is not running yet, and reports whether it runs. A failed start is
// retried by the next call.
func (w *Watcher) Ensure() (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return true, nil
	}
	served, err := ApplicationServed(w.dc)
	if err != nil || !served {
		return false, err
	}
	if err := w.start(); err != nil {
		return false, fmt.Errorf("start watching Argo CD Applications: %w", err)
	}
	w.started = true
	return true, nil
}
