package shared

import "sigs.k8s.io/controller-runtime/pkg/reconcile"

// Track wraps a controller's reconciler, named by the controller, before it is registered: the
// composition root passes the liveness tracker's (manager.Liveness.Track), so a reconcile that
// never completes fails the liveness probe.
type Track func(controller string, r reconcile.Reconciler) reconcile.Reconciler

// Wrap returns r wrapped by t, or r itself when t is nil.
func (t Track) Wrap(controller string, r reconcile.Reconciler) reconcile.Reconciler {
	if t == nil {
		return r
	}
	return t(controller, r)
}
