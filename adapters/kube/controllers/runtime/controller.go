package runtime

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// AssessmentSource returns AICR upgrade-check's rows for the transition from one plan to
// another and the digest of the report they come from ("" and nil when no check ran).
type AssessmentSource func(ctx context.Context, runtimeUID, fromPlanDigest, toPlanDigest string) (
	[]ports.ComponentAssessment, string, error)

// Reconciler turns the ClusterRuntime's target plan into RuntimeRollouts (RO-1) and
// derives its conditions Ready, Available, Reconciling, Stalled and EngineAvailable (CR-6..10),
// applied with the field manager aicr-rollout so the resolver's Resolved is never touched.
type Reconciler struct {
	client      client.Client
	ports       domain.Ports
	plans       *planstore.Reader
	creator     *RolloutCreator
	assessments AssessmentSource
	recorder    record.EventRecorder
	metrics     *shared.Metrics
	opts        shared.Options
	// admission stalls the runtime while a policy it relies on is not in force.
	admission *shared.AdmissionGuard
	// signals records the runtime's Events of stalls and suspension changes once each.
	signals signals
	// cleaned counts what the deletion of the runtime deleted, for its last Event.
	cleaned cleanupCount
	// retrying shows a reconcile's transient failure as the Retrying condition until one succeeds.
	retrying *shared.RetryingStatus[*aicrv1alpha1.ClusterRuntime]
}

// NewReconciler returns the runtime reconciler. assessments may be nil (no upgrade-check).
func NewReconciler(c client.Client, p domain.Ports, plans *planstore.Reader, creator *RolloutCreator,
	assessments AssessmentSource, recorder record.EventRecorder, opts shared.Options) *Reconciler {
	return &Reconciler{client: c, ports: p, plans: plans, creator: creator, assessments: assessments,
		recorder: recorder, metrics: shared.NewMetrics(), opts: opts, admission: shared.NewAdmissionGuard(c, opts.AdmissionPolicies, opts.AdmissionDigests, opts.CRDDigests).WithProject(opts.EngineProject),
		retrying: shared.NewRetryingStatus(c, p.Clock, "ClusterRuntime", func() *aicrv1alpha1.ClusterRuntime { return &aicrv1alpha1.ClusterRuntime{} },
			func(cr *aicrv1alpha1.ClusterRuntime) []metav1.Condition { return cr.Status.Conditions })}
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes/status,verbs=get;patch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile observes the runtime, keeps its finalizer, applies spec.suspendEngine to its engine
// objects, creates the rollout toward its target when due and applies its conditions and
// status, recording an Event when one of its own stalls begins. A runtime being deleted is
// cleaned up instead (finalize). A reconcile that fails shows its error as the Retrying
// condition, which the next one that succeeds removes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.reconcile(ctx, req)
	r.retrying.Report(ctx, req.Name, err)
	return res, err
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cr := &aicrv1alpha1.ClusterRuntime{}
	if err := r.client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cr.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, cr)
	}
	if err := r.ensureFinalizer(ctx, cr); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: r.poll(time.Second)}, nil // the cache is behind a newer write
		}
		return ctrl.Result{}, err
	}
	obs, err := r.observe(ctx, cr)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applySuspension(ctx, cr, obs); err != nil {
		return ctrl.Result{}, err
	}
	retry := retryRequest(cr)
	var createErr error
	retried := ""
	if r.due(cr, obs, retry != "") {
		createErr = r.create(ctx, cr, obs) // the status still says the target is not rolled out yet
		if createErr == nil && retry != "" && obs.inProgress != nil {
			retried = obs.inProgress.Name
		}
	}
	r.metrics.ObserveRollouts(obs.rollouts)
	if createErr != nil {
		retry = "" // not handled yet
	}
	want := desiredStatus(cr, obs, retry, r.ports.Clock.Now())
	if err := r.applyStatus(ctx, cr, want); err != nil {
		return ctrl.Result{}, err
	}
	r.signals.record(r.recorder, cr, obs, want)
	r.signals.retryHandled(r.recorder, cr, retry, retried)
	return r.recheck(obs), createErr
}

// recheck polls the engine while it is missing or unusable: no engine event can announce its
// return (its CRDs may not even be served yet), and EngineAvailable must not stay stale (ENG-4).
// It polls too while the engine objects do not show spec.suspendEngine yet: a sync that has to
// end first, or an engine without a watch, may not announce the change.
func (r *Reconciler) recheck(obs *observation) ctrl.Result {
	if obs.engineStall == nil && !suspensionPending(obs) {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: r.poll(shared.DefaultEngineWatchInterval)}
}

// poll caps a requeue delay at Options.RequeueCap.
func (r *Reconciler) poll(after time.Duration) time.Duration {
	if r.opts.RequeueCap > 0 && r.opts.RequeueCap < after {
		return r.opts.RequeueCap
	}
	return after
}

// retryRequest returns the retry-requested-at annotation when it was not handled yet (CR-11).
func retryRequest(cr *aicrv1alpha1.ClusterRuntime) string {
	v := cr.Annotations[aicrv1alpha1.AnnotationRetryRequestedAt]
	if v == "" || v == cr.Status.HandledRequests.RetryRequestedAt {
		return ""
	}
	return v
}

// due reports whether a rollout toward the target should be created now: the target differs
// from the active plan (or, at the active plan, releases lost with a restore need reinstalling,
// RO-13), nothing blocks, no rollout is in progress, and the last rollout of this transition
// did not fail, expire or get revoked unless a retry was requested.
func (r *Reconciler) due(cr *aicrv1alpha1.ClusterRuntime, obs *observation, retry bool) bool {
	switch {
	case obs.target == "" || obs.inProgress != nil:
		return false
	case obs.target == obs.active && len(obs.reinstall) == 0:
		return false
	case cr.DeletionTimestamp != nil || cr.Spec.Paused || cr.Spec.SuspendEngine || obs.engineStall != nil || obs.planStall != nil:
		return false
	case obs.latest != nil && rolloutStall(obs.latest) != nil:
		return retry
	}
	return true
}

// create builds the rollout from the domain's transition and creates it under RO-1.
func (r *Reconciler) create(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation) error {
	t, assessmentDigest, err := r.transition(ctx, cr, obs)
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	inventory, err := domain.InventoryDigest(obs.live)
	if err != nil {
		return fmt.Errorf("inventory digest: %w", err)
	}
	template := newRolloutTemplate(obs, *t, inventory, assessmentDigest, r.ports.Clock.Now().Add(r.window()))
	name, created, err := r.creator.Ensure(ctx, template)
	if err != nil {
		return err
	}
	if created {
		r.recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventRolloutCreated.String(),
			"rollout %s created toward plan %s (%d steps)", name, obs.target, len(t.Steps))
	}
	var ro aicrv1alpha1.RuntimeRollout
	if err := r.creator.reader.Get(ctx, client.ObjectKey{Name: name}, &ro); err != nil {
		return fmt.Errorf("read rollout %s: %w", name, err)
	}
	obs.inProgress = &ro
	if ro.Spec.ToPlanDigest == obs.target {
		obs.latest = &ro
	}
	return nil
}

// transition is the domain's transition toward the target with the upgrade-check digest it
// was assessed with; at the active plan it reinstalls the releases lost with a restore (RO-13).
// A plan graph the domain cannot order is a plan stall (nil transition).
func (r *Reconciler) transition(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation) (
	*domain.Transition, string, error) {
	var (
		t                domain.Transition
		assessmentDigest string
		err              error
	)
	if obs.target == obs.active {
		t, err = domain.ReinstallTransition(obs.activePlan, obs.reinstall, shared.DisruptionRules(cr))
	} else {
		in := domain.TransitionInput{Active: obs.activePlan, Target: obs.targetPlan, Adoptable: adoptable(cr, obs.live),
			ActiveRenderFlags: obs.activeFlags, TargetRenderFlags: obs.targetFlags,
			WaiveInitialInstallOverrides: cr.Spec.ApprovalPolicy.InitialInstallOverrides == aicrv1alpha1.OverrideApprovalWaived,
			Disruption:                   shared.DisruptionRules(cr)}
		if r.assessments != nil && obs.active != "" {
			if in.Assessments, assessmentDigest, err = r.assessments(ctx, obs.uid, obs.active, obs.target); err != nil {
				return nil, "", fmt.Errorf("read upgrade-check assessment: %w", err)
			}
		}
		t, err = domain.PlanTransition(in)
	}
	if err != nil {
		obs.planStall = domain.PlanUnreadable(err.Error())
		return nil, "", nil
	}
	return &t, assessmentDigest, nil
}

func (r *Reconciler) window() time.Duration {
	if r.opts.RolloutWindow > 0 {
		return r.opts.RolloutWindow
	}
	return shared.DefaultRolloutWindow
}
