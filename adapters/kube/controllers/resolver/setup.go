package resolver

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// SetupWithManager watches the ClusterRuntime (spec and annotation changes),
// the operator's Jobs in the Job namespace, Node label changes and deleted
// plan, values and recipe ConfigMaps (metadata only), all mapped to the one
// ClusterRuntime: one worker, as the workqueue never hands one key to two
// workers at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toRuntime := shared.ToRuntime()
	ownJobs := predicate.NewPredicateFuncs(func(o client.Object) bool {
		ns := o.GetNamespace()
		return (ns == r.Config.JobNamespace || ns == r.Config.DiscoveryNamespace) &&
			o.GetLabels()[aicrv1alpha1.LabelManagedBy] == aicrv1alpha1.ManagedByValue
	})
	// A deleted plan ConfigMap is resolved again (PLAN-7); a deleted values or recipe
	// ConfigMap of a plan is rebuilt or resolved again (repairRecorded).
	lostPlans := predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc: func(e event.DeleteEvent) bool {
			return e.Object.GetNamespace() == r.Config.OperatorNamespace && shared.IsPlanConfigMap(e.Object)
		},
	}
	b := ctrl.NewControllerManagedBy(mgr).Named("resolver").
		For(&aicrv1alpha1.ClusterRuntime{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&batchv1.Job{}, toRuntime, builder.WithPredicates(ownJobs)).
		Watches(&corev1.Node{}, toRuntime, builder.OnlyMetadata, builder.WithPredicates(r.nodes.changed())).
		Watches(&corev1.ConfigMap{}, toRuntime, builder.OnlyMetadata, builder.WithPredicates(lostPlans))
	return shared.WatchAdmission(b, r.admission, toRuntime).
		WithOptions(controller.Options{RateLimiter: shared.RetryLimiter()}).Complete(r.Config.Track.Wrap("resolver", r))
}
