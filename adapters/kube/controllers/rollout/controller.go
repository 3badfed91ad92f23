package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// Passes of one reconcile (they keep the per-step overhead near one write and one Event).
const (
	// maxPasses bounds the passes of one reconcile. A pass whose decisions wrote the status
	// and need no wait (an instant engine, a step whose release is ready) is followed by
	// another on the object the write returned, instead of a requeue that would read a cache
	// still behind that write.
	maxPasses = 8
	// maxConflicts bounds the passes that follow a write lost to a newer resourceVersion,
	// each on the rollout read live; past it the rollout is requeued with backoff.
	maxConflicts = 2
)

// Reconciler advances RuntimeRollouts through the domain state machine, one decision
// per step: it writes the status through the status subresource, sets the outcome
// label and evidence annotation once, and records an Event per transition and stall.
type Reconciler struct {
	client client.Client
	// live reads past the cache: an ended rollout is settled only after a live read.
	live     client.Reader
	ports    domain.Ports
	plans    *planstore.Reader
	recorder record.EventRecorder
	metrics  *shared.Metrics
	opts     shared.Options
	// admission stalls every rollout while a policy it relies on is not in force.
	admission *shared.AdmissionGuard
	// backoff spaces the requeues of a rollout whose writes keep losing to newer ones.
	backoff workqueue.TypedRateLimiter[ctrl.Request]
	// own is what the reconciler wrote last of each rollout, read over a cache still behind it.
	own *ownWrites
	// retrying shows a reconcile's transient failure as the Retrying condition until one succeeds.
	retrying *shared.RetryingStatus[*aicrv1alpha1.RuntimeRollout]
}

// NewReconciler returns the rollout reconciler over the cached client c, the uncached
// reader live, the domain ports p, the plan reader and an event recorder.
func NewReconciler(c client.Client, live client.Reader, p domain.Ports, plans *planstore.Reader, recorder record.EventRecorder,
	opts shared.Options) *Reconciler {
	return &Reconciler{client: c, live: live, ports: p, plans: plans, recorder: recorder, metrics: shared.NewMetrics(), opts: opts,
		admission: shared.NewAdmissionGuard(c, opts.AdmissionPolicies, opts.AdmissionDigests, opts.CRDDigests).WithProject(opts.EngineProject),
		backoff:   workqueue.NewTypedItemExponentialFailureRateLimiter[ctrl.Request](5*time.Millisecond, time.Second),
		own:       newOwnWrites(),
		retrying: shared.NewRetryingStatus(c, p.Clock, "RuntimeRollout", func() *aicrv1alpha1.RuntimeRollout { return &aicrv1alpha1.RuntimeRollout{} },
			func(ro *aicrv1alpha1.RuntimeRollout) []metav1.Condition { return ro.Status.Conditions })}
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=get;list;watch;patch;update
// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile advances one RuntimeRollout in passes (maxPasses): a pass whose decisions wrote and
// need no wait is followed at once by another on the object its write returned; a write that
// loses to a newer resourceVersion (the cache was behind) is decided again on the rollout
// read live, and past maxConflicts requeued with exponential backoff, never a fixed delay. A
// rollout the cache serves in a version older than the reconciler's own last write of it is
// decided on that write (ownWrites). The Events a pass whose write failed owes (its step starts;
// every decision once it set the outcome label) are recorded unless the rollout read live after
// it shows them (recordLostEvents). A reconcile that fails, or whose writes keep losing
// (lostRace), shows its error as the Retrying condition, which the next one that succeeds removes.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.reconcile(ctx, req)
	r.retrying.Report(ctx, req.Name, err)
	if errors.As(err, new(lostRace)) {
		return res, nil // requeued with backoff: a benign race, not an error to log
	}
	return res, err
}

// lostRace is the end of a reconcile whose writes kept losing to newer versions of the rollout
// (maxConflicts): it is requeued with backoff, and shown as Retrying while the race goes on.
type lostRace struct{ err error }

// Error says the writes kept losing, and the last conflict.
func (l lostRace) Error() string {
	return fmt.Sprintf("the rollout's writes lost to newer versions %d times in a row: %v", maxConflicts+1, l.err)
}

// Unwrap returns the last conflict.
func (l lostRace) Unwrap() error { return l.err }

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ro := &aicrv1alpha1.RuntimeRollout{}
	if err := r.client.Get(ctx, req.NamespacedName, ro); err != nil {
		if apierrors.IsNotFound(err) {
			r.own.forget(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ro = r.own.latest(ro)
	conflicts := 0
	for pass := 1; ; pass++ {
		res, again, err := r.pass(ctx, ro)
		switch {
		case apierrors.IsConflict(err):
			fresh, readErr := r.readLive(ctx, req)
			r.recordLostEvents(ctx, fresh, err)
			switch {
			case readErr != nil || fresh == nil:
				return ctrl.Result{}, readErr
			case conflicts == maxConflicts:
				return ctrl.Result{RequeueAfter: r.backoff.When(req)}, lostRace{err}
			}
			conflicts++
			ro = fresh
			continue
		case err != nil:
			r.recordLostEvents(ctx, nil, err)
			return ctrl.Result{}, err
		case again && pass < maxPasses:
			continue
		}
		r.backoff.Forget(req)
		return res, nil
	}
}

// readLive reads the rollout past the cache; nil when it is gone.
func (r *Reconciler) readLive(ctx context.Context, req ctrl.Request) (*aicrv1alpha1.RuntimeRollout, error) {
	ro := &aicrv1alpha1.RuntimeRollout{}
	if err := r.live.Get(ctx, req.NamespacedName, ro); err != nil {
		if apierrors.IsNotFound(err) {
			r.own.forget(req.Name)
			return nil, nil
		}
		return nil, err
	}
	return ro, nil
}

// pass settles an ended rollout, or takes the rollout's next decisions and persists them. again
// reports that the decisions changed the rollout and need no wait, so another pass can go on.
func (r *Reconciler) pass(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout) (res ctrl.Result, again bool, err error) {
	if ro.Labels[aicrv1alpha1.LabelOutcome] != "" {
		return ctrl.Result{}, false, r.settleEnded(ctx, ro)
	}
	env, planStall, err := r.guardedEnvironment(ctx, ro)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	out, decisions, advErr := r.advance(ctx, ro, env, planStall)
	if err = r.persist(ctx, ro, out, decisions); err != nil {
		return ctrl.Result{}, false, err
	}
	if err = r.deleteRecordedValidation(ctx, out); err != nil {
		return ctrl.Result{}, false, err
	}
	if advErr != nil {
		return ctrl.Result{}, false, advErr
	}
	again = len(decisions) > 0 && out.Stall == nil && out.RequeueAfter == 0 && !out.Phase().Terminal()
	res = r.result(out)
	if planStall != nil && planStall.Reason() == domain.StallAdmissionPolicyMissing {
		res.RequeueAfter = r.guardRecheck()
	}
	return res, again, nil
}

// guardRecheck is when a rollout the admission guard stalled is checked again: the engine
// project is not watched (the operator may only get it by name), so its restoration is seen
// by polling, as the runtime polls the engine.
func (r *Reconciler) guardRecheck() time.Duration {
	if r.opts.RequeueCap > 0 && r.opts.RequeueCap < shared.DefaultEngineWatchInterval {
		return r.opts.RequeueCap
	}
	return shared.DefaultEngineWatchInterval
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
