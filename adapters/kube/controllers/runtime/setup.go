package runtime

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
)

// SetupWithManager registers the runtime controller: the ClusterRuntime, every RuntimeRollout
// and plan ConfigMaps, all mapped to the one runtime. One worker: there is one key (the
// ClusterRuntime), which the workqueue never hands to two workers at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) (controller.Controller, error) {
	b := ctrl.NewControllerManagedBy(mgr).Named("clusterruntime").
		For(&aicrv1alpha1.ClusterRuntime{}).
		Watches(&aicrv1alpha1.RuntimeRollout{}, r.EngineHandler()).
		Watches(&corev1.ConfigMap{}, r.EngineHandler(), builder.WithPredicates(shared.PlanConfigMaps))
	return shared.WatchAdmission(b, r.admission, r.EngineHandler()).Build(r.opts.Track.Wrap("clusterruntime", r))
}

// EngineHandler returns the handler mapping any object to the one runtime.
func (r *Reconciler) EngineHandler() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: aicrv1alpha1.ClusterRuntimeName}}}
	})
}
