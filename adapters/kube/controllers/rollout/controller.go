package rollout

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/domain"
)

const (
	// conflictRetry is the delay before retrying a write that lost to a newer resourceVersion.
	conflictRetry = 10 * time.Millisecond
)

// Reconciler advances RuntimeRollouts through the domain state machine, one decision
// per step (STYLE R7): it writes the status through the status subresource, sets the outcome
// label and evidence annotation once, and records an Event per transition and stall.
type Reconciler struct {
	client client.Client
	// live reads past the cache: an ended rollout is settled only after a live read.
	live     client.Reader
	ports    domain.Ports
	plans    *shared.PlanReader
	recorder record.EventRecorder
	metrics  *shared.Metrics
	opts     shared.Options
	// admission stalls every rollout while a policy it relies on is not in force.
	admission *shared.AdmissionGuard
}

// NewReconciler returns the rollout reconciler over the cached client c, the uncached
// reader live, the domain ports p, the plan reader and an event recorder.
func NewReconciler(c client.Client, live client.Reader, p domain.Ports, plans *shared.PlanReader, recorder record.EventRecorder,
	opts shared.Options) *Reconciler {
	return &Reconciler{client: c, live: live, ports: p, plans: plans, recorder: recorder, metrics: shared.NewMetrics(), opts: opts,
		admission: shared.NewAdmissionGuard(c, opts.AdmissionPolicies)}
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=get;list;watch;patch;update
// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile advances one RuntimeRollout.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ro := &aicrv1alpha1.RuntimeRollout{}
	if err := r.client.Get(ctx, req.NamespacedName, ro); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ro.Labels[aicrv1alpha1.LabelOutcome] != "" {
		err := r.settleEnded(ctx, ro)
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictRetry}, nil // the cache is behind the status just written
		}
		return ctrl.Result{}, err
	}
	env, planStall, err := r.guardedEnvironment(ctx, ro)
	if err != nil {
		return ctrl.Result{}, err
	}
	out, decisions, advErr := r.advance(ctx, ro, env, planStall)
	if err := r.persist(ctx, ro, out, decisions); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictRetry}, nil // the cache is behind our last write
		}
		return ctrl.Result{}, err
	}
	if advErr != nil {
		return ctrl.Result{}, advErr
	}
	return r.result(out), nil
}

// guardedEnvironment is the environment of the rollout, or, while an admission policy the
// operator relies on is not in force, the AdmissionPolicyMissing stall: then nothing read back
// is trusted and the domain takes no decision, so no step starts.
func (r *Reconciler) guardedEnvironment(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout) (
	domain.Environment, *domain.Stall, error) {
	if stall, err := r.admission.Check(ctx); err != nil || stall != nil {
		return domain.Environment{}, stall, err
	}
	return r.environment(ctx, ro)
}

func (r *Reconciler) result(out domain.Outcome) ctrl.Result {
	after := out.RequeueAfter
	if r.opts.RequeueCap > 0 && (after > r.opts.RequeueCap || (after == 0 && out.Stall == nil && !out.Phase().Terminal())) {
		after = r.opts.RequeueCap
	}
	return ctrl.Result{RequeueAfter: after}
}
