package retention

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// DefaultInterval is how often the retention pass runs besides its triggers.
const DefaultInterval = time.Hour

// RecorderName names the retention controller as the source of its Events.
const RecorderName = "aicr-retention"

// retentionConflictRetry is the delay before a pass that found an object changed since it
// was listed runs again.
const retentionConflictRetry = time.Second

// Reconciler applies RET-1..3 to the operator's own objects: plan ConfigMaps with
// their recipe, values and assessment ConfigMaps, kept AICR results and terminal
// RuntimeRollouts. The domain decides (domain.PlansToDelete, RolloutsToDelete,
// JobResultsToDelete); the reconciler lists, deletes by name with UID and resourceVersion
// preconditions, logs each deletion, counts it and records one Event per pass on the
// ClusterRuntime. It runs when the active, candidate, target or pinned plan moves, when a
// rollout gets its outcome and every interval.
type Reconciler struct {
	client    client.Client
	reader    client.Reader
	plans     *planstore.Reader
	recorder  record.EventRecorder
	metrics   *shared.Metrics
	namespace string
	interval  time.Duration
	release   shared.Release
	// seals verifies the outcome seals: only a sealed success counts (domain.SealedSuccess).
	seals ports.Sealer
	// Track wraps the reconciler when it is registered (the liveness tracker); nil: none.
	Track shared.Track
}

// New returns the retention reconciler. c reads the ClusterRuntime and the
// rollouts (cached) and deletes; reader lists the labelled ConfigMaps of namespace uncached,
// so a plan the resolver has just written is never missed; interval is the periodic pass
// (DefaultInterval when zero); release is the AICR release the resolver runs, which names the
// Jobs and kept results of the current resolution; seals verifies the operator's seal of each
// rollout's outcome, since retention counts a success only under it.
func New(c client.Client, reader client.Reader, recorder record.EventRecorder, namespace string,
	interval time.Duration, release shared.Release, seals ports.Sealer) (*Reconciler, error) {
	if c == nil || reader == nil || recorder == nil || namespace == "" || seals == nil {
		return nil, fmt.Errorf("retention: client, reader, recorder, namespace and sealer are required")
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Reconciler{client: c, reader: reader, plans: planstore.NewReader(reader, namespace, seals), recorder: recorder,
		metrics: shared.NewMetrics(), namespace: namespace, interval: interval, release: release, seals: seals}, nil
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile runs one retention pass: the doomed rollouts and plans, then, once all of them
// are gone, the recipes, values and kept results only they referenced. Nothing is deleted
// while the ClusterRuntime is missing or being deleted (CR-12 cleans up then).
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	cr := &aicrv1alpha1.ClusterRuntime{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	var rollouts aicrv1alpha1.RuntimeRolloutList
	if err := r.client.List(ctx, &rollouts); err != nil {
		return ctrl.Result{}, fmt.Errorf("list rollouts: %w", err)
	}
	// The plan writers' lock: recipe and values ConfigMaps are content-addressed and shared
	// between plans, so a pass must never see a reused one without the new plan about to
	// reference it.
	planstore.Writes.Lock()
	defer planstore.Writes.Unlock()
	stored, err := r.listStored(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	decision := decideRetention(cr, r.release, rollouts.Items, stored, r.seals)
	deleted := map[string]int{}
	conflicted, err := r.deleteAll(ctx, decision.owners, deleted)
	if err == nil && !conflicted {
		conflicted, err = r.deleteAll(ctx, decision.dependents, deleted)
	}
	if len(deleted) > 0 {
		r.recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventRetentionApplied.String(), "retention (RET-1..3) deleted %s", deletedSummary(deleted))
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if conflicted {
		return ctrl.Result{RequeueAfter: retentionConflictRetry}, nil
	}
	return ctrl.Result{RequeueAfter: r.interval}, nil
}
