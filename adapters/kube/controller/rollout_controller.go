package controller

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
)

// Defaults of Options.
const (
	// DefaultRolloutWindow is how long a new rollout has before its deadline.
	DefaultRolloutWindow = 24 * time.Hour
	// FieldManager is the server-side-apply field manager of the rollout controllers (CR-7).
	FieldManager = "aicr-rollout"
	// maxDecisions bounds the domain decisions one reconcile takes; each mutation ends it.
	maxDecisions = 4
	// conflictRetry is the delay before retrying a write that lost to a newer resourceVersion.
	conflictRetry = 10 * time.Millisecond
)

// Options configures the rollout and runtime controllers from the installation values.
type Options struct {
	// OperatorNamespace holds the plan ConfigMaps.
	OperatorNamespace string
	// ValidationEnabled is the chart's validation.enabled (RO-10).
	ValidationEnabled bool
	// ValidationImage is the pinned validator image.
	ValidationImage string
	// ValidationNamespace is where AICR runs the deployment validation checks (RO-10).
	ValidationNamespace string
	// ActionTimeout bounds one step (domain.DefaultActionTimeout when zero).
	ActionTimeout time.Duration
	// RolloutWindow is the time from a rollout's creation to its deadline (DefaultRolloutWindow when zero).
	RolloutWindow time.Duration
	// AdmissionPolicies are the chart's policies (ChartAdmissionPolicies) whose absence stalls
	// every rollout and the runtime with AdmissionPolicyMissing; empty checks none.
	AdmissionPolicies []string
	// RequeueCap caps every requeue delay the domain asks for (0: no cap). Tests with a fake
	// clock set it low so time moved on the clock is observed promptly.
	RequeueCap time.Duration
}

// RolloutReconciler advances RuntimeRollouts through the domain state machine, one decision
// per step (STYLE R7): it writes the status through the status subresource, sets the outcome
// label and evidence annotation once, and records an Event per transition and stall.
type RolloutReconciler struct {
	client client.Client
	// live reads past the cache: an ended rollout is settled only after a live read.
	live     client.Reader
	ports    domain.Ports
	plans    *PlanReader
	recorder record.EventRecorder
	metrics  *Metrics
	opts     Options
	// admission stalls every rollout while a policy it relies on is not in force.
	admission *AdmissionGuard
}

// NewRolloutReconciler returns the rollout reconciler over the cached client c, the uncached
// reader live, the domain ports p, the plan reader and an event recorder.
func NewRolloutReconciler(c client.Client, live client.Reader, p domain.Ports, plans *PlanReader, recorder record.EventRecorder,
	opts Options) *RolloutReconciler {
	return &RolloutReconciler{client: c, live: live, ports: p, plans: plans, recorder: recorder, metrics: NewMetrics(), opts: opts,
		admission: NewAdmissionGuard(c, opts.AdmissionPolicies)}
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=get;list;watch;patch;update
// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile advances one RuntimeRollout.
func (r *RolloutReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
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
func (r *RolloutReconciler) guardedEnvironment(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout) (
	domain.Environment, *domain.Stall, error) {
	if stall, err := r.admission.Check(ctx); err != nil || stall != nil {
		return domain.Environment{}, stall, err
	}
	return r.environment(ctx, ro)
}

func (r *RolloutReconciler) result(out domain.Outcome) ctrl.Result {
	after := out.RequeueAfter
	if r.opts.RequeueCap > 0 && (after > r.opts.RequeueCap || (after == 0 && out.Stall == nil && !out.Phase().Terminal())) {
		after = r.opts.RequeueCap
	}
	return ctrl.Result{RequeueAfter: after}
}
