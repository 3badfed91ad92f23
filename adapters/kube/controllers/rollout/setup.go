package rollout

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// MaxConcurrentReconciles is how many rollouts the controller reconciles at once. The
// workqueue never hands one rollout to two workers, and reconciles of different rollouts share
// no mutable state: each reads its rollout, the runtime and the plans afresh, writes its own
// status with an optimistic lock and the engine objects with one (a write that lost to another
// is retried on the next reconcile), and the reconciler's fields are read-only or safe for
// concurrent use (the per-request backoff, the metrics, the ports). At most one rollout targets
// the runtime's plan at a time (a retry is created once the previous one ended), so a second
// worker only keeps ended or superseded rollouts from waiting behind a slow engine call.
const MaxConcurrentReconciles = 4

// SetupWithManager registers the rollout controller: RuntimeRollouts (spec and label changes;
// its own status writes do not re-trigger), the ClusterRuntime and plan ConfigMaps, both
// mapped to the rollouts without an outcome. It returns the controller so shared.EngineWatch can add
// the engine objects' watch later.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) (controller.Controller, error) {
	toOpen := handler.EnqueueRequestsFromMapFunc(r.openRollouts)
	b := ctrl.NewControllerManagedBy(mgr).Named("runtimerollout").
		For(&aicrv1alpha1.RuntimeRollout{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Watches(&aicrv1alpha1.ClusterRuntime{}, toOpen).
		Watches(&corev1.ConfigMap{}, toOpen, builder.WithPredicates(shared.PlanConfigMaps))
	return shared.WatchAdmission(b, r.admission, toOpen).
		WithOptions(controller.Options{MaxConcurrentReconciles: MaxConcurrentReconciles, RateLimiter: shared.RetryLimiter()}).
		Build(r.opts.Track.Wrap("runtimerollout", r))
}

// OpenRollouts maps any event to the rollouts without an outcome label.
func (r *Reconciler) openRollouts(ctx context.Context, _ client.Object) []reconcile.Request {
	var list aicrv1alpha1.RuntimeRolloutList
	if err := r.client.List(ctx, &list); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, ro := range list.Items {
		if ro.Labels[aicrv1alpha1.LabelOutcome] == "" {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: ro.Name}})
		}
	}
	return out
}

// EngineHandler returns the event handler the engine objects' watch uses for this controller.
func (r *Reconciler) EngineHandler() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(r.openRollouts)
}
