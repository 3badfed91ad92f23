package retention

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// SetupWithManager registers the retention controller: the ClusterRuntime when a plan it
// names moves, and rollouts whose outcome label changes, all mapped to the one runtime (one
// worker: the workqueue never hands one key to two workers at once).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toRuntime := shared.ToRuntime()
	return ctrl.NewControllerManagedBy(mgr).Named("retention").
		For(&aicrv1alpha1.ClusterRuntime{}, builder.WithPredicates(retentionPlansMoved)).
		Watches(&aicrv1alpha1.RuntimeRollout{}, toRuntime, builder.WithPredicates(retentionOutcomeSet)).
		WithOptions(controller.Options{RateLimiter: shared.RetryLimiter()}).
		Complete(r.Track.Wrap("retention", r))
}

// retentionPlansMoved passes a new ClusterRuntime and a change of the plans it names.
var retentionPlansMoved = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(*aicrv1alpha1.ClusterRuntime)
		n, okNew := e.ObjectNew.(*aicrv1alpha1.ClusterRuntime)
		return !okOld || !okNew || retentionPlanDigests(o) != retentionPlanDigests(n)
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// retentionOutcomeSet passes a rollout created with an outcome (a restore) and a change of
// the outcome label.
var retentionOutcomeSet = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool { return e.Object.GetLabels()[aicrv1alpha1.LabelOutcome] != "" },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetLabels()[aicrv1alpha1.LabelOutcome] != e.ObjectNew.GetLabels()[aicrv1alpha1.LabelOutcome]
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func retentionPlanDigests(cr *aicrv1alpha1.ClusterRuntime) [5]string {
	return [5]string{cr.Status.ActivePlanDigest, cr.Status.CandidatePlanDigest, cr.Status.TargetPlanDigest,
		cr.Spec.Selection.PinnedPlanDigest, string(cr.Spec.Selection.Policy)}
}
