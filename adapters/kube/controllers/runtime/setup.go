package runtime

import (
	"context"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// rolloutStatusDelay is how long the runtime waits before it follows a change of a rollout's
// status alone. The changes coming within it are followed by one reconcile and at most one
// status write of the runtime: a rollout with a fast engine writes its status once a step,
// and following each at once made a second write per step that competed with the rollout's
// own on the API server. Any other change of a rollout is followed at once.
const rolloutStatusDelay = 100 * time.Millisecond

// SetupWithManager registers the runtime controller: the ClusterRuntime, every RuntimeRollout
// (status-only changes after rolloutStatusDelay) and plan ConfigMaps, all mapped to the one
// runtime. One worker: there is one key (the ClusterRuntime), which the workqueue never hands
// to two workers at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) (controller.Controller, error) {
	b := ctrl.NewControllerManagedBy(mgr).Named("clusterruntime").
		For(&aicrv1alpha1.ClusterRuntime{}).
		Watches(&aicrv1alpha1.RuntimeRollout{}, rolloutHandler()).
		Watches(&corev1.ConfigMap{}, r.EngineHandler(), builder.WithPredicates(shared.PlanConfigMaps))
	return shared.WatchAdmission(b, r.admission, r.EngineHandler()).
		WithOptions(controller.Options{RateLimiter: shared.RetryLimiter()}).Build(r.opts.Track.Wrap("clusterruntime", r))
}

// EngineHandler returns the handler mapping any object to the one runtime.
func (r *Reconciler) EngineHandler() handler.EventHandler {
	return shared.ToRuntime()
}

// rolloutHandler maps every rollout event to the one runtime, a change of the rollout's status
// alone (generation and labels unchanged) after rolloutStatusDelay, the queue keeping one
// pending delay however many changes come within it.
func rolloutHandler() handler.EventHandler {
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: aicrv1alpha1.ClusterRuntimeName}}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, _ event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(req)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectOld.GetGeneration() == e.ObjectNew.GetGeneration() && maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) {
				q.AddAfter(req, rolloutStatusDelay)
				return
			}
			q.Add(req)
		},
		DeleteFunc: func(_ context.Context, _ event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(req)
		},
		GenericFunc: func(_ context.Context, _ event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(req)
		},
	}
}
