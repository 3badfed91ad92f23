package manager

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/healthz"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/NVIDIA/aicr/ports"
)

// Liveness records the reconciles in flight and fails the liveness probe while one of them has
// run longer than its bound: every reconcile runs under the manager's reconcile deadline
// (Options.ReconcileTimeout) and every outbound client has timeouts, so a reconcile older than
// the deadline plus a grace is stuck on something that ignores its context, and only a restart
// frees its worker. Times come from the Clock port, so tests move them. Safe for concurrent use.
type Liveness struct {
	clock ports.Clock
	bound time.Duration

	mu       sync.Mutex
	next     uint64
	inFlight map[uint64]reconcileStart
}

// reconcileStart is one reconcile in flight.
type reconcileStart struct {
	controller string
	request    reconcile.Request
	at         time.Time
}

var _ healthz.Checker = (*Liveness)(nil).Check

// NewLiveness returns the tracker failing the probe for a reconcile in flight longer than bound.
func NewLiveness(clock ports.Clock, bound time.Duration) *Liveness {
	return &Liveness{clock: clock, bound: bound, inFlight: map[uint64]reconcileStart{}}
}

// Track wraps controller's reconciler r so each of its reconciles is recorded from its start to
// its return (a panic included).
func (l *Liveness) Track(controller string, r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		done := l.start(controller, req)
		defer done()
		return r.Reconcile(ctx, req)
	})
}

// start records a reconcile and returns the function that ends it.
func (l *Liveness) start(controller string, req reconcile.Request) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.next
	l.next++
	l.inFlight[id] = reconcileStart{controller: controller, request: req, at: l.clock.Now()}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.inFlight, id)
	}
}

// Check is the liveness check: an error naming the oldest reconcile in flight for longer than
// the bound, nil otherwise (no reconcile in flight, or all of them younger). The error is also
// logged, as the probe's answer withholds it.
func (l *Liveness) Check(*http.Request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	var oldest *reconcileStart
	for _, s := range l.inFlight {
		if now.Sub(s.at) > l.bound && (oldest == nil || s.at.Before(oldest.at)) {
			oldest = &s
		}
	}
	if oldest == nil {
		return nil
	}
	err := fmt.Errorf("controller %s has not completed its reconcile of %s started %s ago (bound %s); "+
		"the operator restarts to free its worker", oldest.controller, objectName(oldest.request), now.Sub(oldest.at).Round(time.Second), l.bound)
	logf.Log.WithName("liveness").Error(err, "liveness check failed")
	return err
}

// objectName is the request's object: <name> when cluster-scoped, <namespace>/<name> otherwise.
func objectName(req reconcile.Request) string {
	if req.Namespace == "" {
		return req.Name
	}
	return req.String()
}
