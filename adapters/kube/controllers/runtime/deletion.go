package runtime

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// cleanupRoles are the roles of the operator-namespace ConfigMaps a deleted runtime leaves
// behind: plans with their recipes and values, and the kept AICR results (RES-7).
var cleanupRoles = []string{aicrv1alpha1.RolePlan, aicrv1alpha1.RoleRecipe, aicrv1alpha1.RoleValues,
	aicrv1alpha1.RoleSnapshot, aicrv1alpha1.RoleAssessment}

// cleanupPoll is how soon a deletion looks again after it deleted objects: the cache has to see
// them gone before the finalizer goes.
const cleanupPoll = time.Second

// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=update;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;delete

// ensureFinalizer adds the operator's finalizer operator.aicr.run/cleanup to the ClusterRuntime
// (CR-12), so its deletion waits for the cleanup. The patch carries the resourceVersion read and
// changes nothing but the finalizers, which is all the chart's aicr-operator-clusterruntime
// policy lets the operator change.
func (r *Reconciler) ensureFinalizer(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) error {
	if controllerutil.ContainsFinalizer(cr, aicrv1alpha1.FinalizerCleanup) {
		return nil
	}
	patch := client.MergeFromWithOptions(cr.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(cr, aicrv1alpha1.FinalizerCleanup)
	if err := r.client.Patch(ctx, cr, patch); err != nil {
		return fmt.Errorf("add finalizer %s: %w", aicrv1alpha1.FinalizerCleanup, err)
	}
	return nil
}

// finalize runs the deletion of the ClusterRuntime (CR-12) as the domain decides it
// (domain.DecideDeletion): Ready is Deleting meanwhile; the rollout in progress ends Orphaned
// after its step in flight (the rollout controller decides that); then the operator's plans,
// recipes, values, kept results and Jobs are deleted and the finalizer is removed. The engine
// objects are never written: they stay with their annotations for a later runtime to adopt.
func (r *Reconciler) finalize(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) (ctrl.Result, error) {
	uid := string(cr.UID)
	in := domain.DeletionInput{RuntimeUID: uid}
	var list aicrv1alpha1.RuntimeRolloutList
	if err := r.client.List(ctx, &list); err != nil {
		return ctrl.Result{}, fmt.Errorf("list rollouts: %w", err)
	}
	for _, ro := range list.Items {
		if ro.Spec.RuntimeUID == uid && ro.Labels[aicrv1alpha1.LabelOutcome] == "" {
			in.RolloutInProgress = ro.Name
		}
	}
	left, err := r.leftovers(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	in.Leftovers = len(left)
	step, msg := domain.DecideDeletion(in)
	holding := controllerutil.ContainsFinalizer(cr, aicrv1alpha1.FinalizerCleanup)
	if err := r.applyStatus(ctx, cr, deletingStatus(cr, msg, r.ports.Clock.Now())); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if !holding {
		return ctrl.Result{}, nil // another finalizer holds it: nothing of the operator's is left to do
	}
	switch step {
	case domain.DeletionWaitForRollout:
		return ctrl.Result{}, nil // the rollout's outcome label is a watched change
	case domain.DeletionCleanUp:
		deleted, err := r.deleteLeftovers(ctx, left)
		if len(deleted) > 0 {
			r.cleaned.add(deleted)
		}
		return ctrl.Result{RequeueAfter: r.poll(cleanupPoll)}, err
	case domain.DeletionDone:
	}
	patch := client.MergeFromWithOptions(cr.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(cr, aicrv1alpha1.FinalizerCleanup)
	if err := r.client.Patch(ctx, cr, patch); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: r.poll(cleanupPoll)}, nil
		}
		return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("remove finalizer %s: %w", aicrv1alpha1.FinalizerCleanup, err))
	}
	r.recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventCleanedUp.String(),
		"%s; finalizer %s removed; the engine objects stay for a later runtime to adopt (spec.adoption.runtimeUID %s)",
		r.cleaned.summary(), aicrv1alpha1.FinalizerCleanup, uid)
	r.cleaned.reset()
	return ctrl.Result{}, nil
}

// leftover is one object of the operator a deleted runtime leaves behind.
type leftover struct {
	kind string
	obj  client.Object
}

// leftovers lists the operator's objects to delete: its ConfigMaps of the cleanup roles in the
// operator namespace, and its Jobs in the Job namespaces the manager caches (each with the
// operator's managed-by label) that are not being deleted already.
func (r *Reconciler) leftovers(ctx context.Context) ([]leftover, error) {
	roles, err := labels.NewRequirement(aicrv1alpha1.LabelRole, selection.In, cleanupRoles)
	if err != nil {
		return nil, fmt.Errorf("role selector: %w", err)
	}
	managed, err := labels.NewRequirement(aicrv1alpha1.LabelManagedBy, selection.Equals, []string{aicrv1alpha1.ManagedByValue})
	if err != nil {
		return nil, fmt.Errorf("managed-by selector: %w", err)
	}
	var cms corev1.ConfigMapList
	if err := r.client.List(ctx, &cms, client.InNamespace(r.opts.OperatorNamespace),
		client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*roles, *managed)}); err != nil {
		return nil, fmt.Errorf("list the operator's ConfigMaps: %w", err)
	}
	var jobs batchv1.JobList
	if err := r.client.List(ctx, &jobs, client.MatchingLabels{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}); err != nil {
		return nil, fmt.Errorf("list the operator's Jobs: %w", err)
	}
	out := make([]leftover, 0, len(cms.Items)+len(jobs.Items))
	for i := range cms.Items {
		out = append(out, leftover{kind: cms.Items[i].Labels[aicrv1alpha1.LabelRole], obj: &cms.Items[i]})
	}
	for i := range jobs.Items {
		if jobs.Items[i].DeletionTimestamp.IsZero() {
			out = append(out, leftover{kind: "Job", obj: &jobs.Items[i]})
		}
	}
	return out, nil
}

// deleteLeftovers deletes each object by name with its UID as precondition (a Job in the
// foreground, with its pods and run-scoped objects, as retention does) and returns the count
// deleted by kind; an object already gone is fine.
func (r *Reconciler) deleteLeftovers(ctx context.Context, left []leftover) (map[string]int, error) {
	log := ctrl.LoggerFrom(ctx).WithName("cleanup")
	deleted := map[string]int{}
	var errs []error
	for _, l := range left {
		uid := l.obj.GetUID()
		opts := []client.DeleteOption{client.Preconditions{UID: &uid}}
		if l.kind == "Job" {
			opts = append(opts, client.PropagationPolicy(metav1.DeletePropagationForeground))
		}
		switch err := r.client.Delete(ctx, l.obj, opts...); {
		case err == nil:
			deleted[l.kind]++
			log.Info("deleted", "kind", l.kind, "namespace", l.obj.GetNamespace(), "name", l.obj.GetName())
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		default:
			errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", l.kind, l.obj.GetNamespace(), l.obj.GetName(), err))
		}
	}
	return deleted, errors.Join(errs...)
}

// deletingStatus is the owned status of a ClusterRuntime being deleted: Ready=False Deleting
// (CR-8), Reconciling with where the cleanup stands, no Stalled; the other fields stay as they are.
func deletingStatus(cr *aicrv1alpha1.ClusterRuntime, message string, now time.Time) runtimeStatus {
	gen := cr.Generation
	var conds []metav1.Condition
	for _, t := range runtimeConditionTypes {
		if c := meta.FindStatusCondition(cr.Status.Conditions, t); c != nil {
			conds = append(conds, *c)
		}
	}
	ready := domain.ReadyCondition(domain.ReadyInput{Deleting: true})
	shared.SetCondition(&conds, toCondition(aicrv1alpha1.ConditionReady, ready), gen, now)
	shared.MarkReconciling(&conds, domain.ReasonDeleting, message, gen, now)
	return runtimeStatus{generation: gen, conditions: conds, active: cr.Status.ActivePlanDigest,
		target: cr.Status.TargetPlanDigest, rollout: cr.Status.Rollout, retryRequestedAt: cr.Status.HandledRequests.RetryRequestedAt}
}

// cleanupCount sums what a deletion deleted over its passes, for the Event that ends it.
type cleanupCount struct {
	mu     sync.Mutex
	byKind map[string]int
}

func (c *cleanupCount) add(deleted map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKind == nil {
		c.byKind = map[string]int{}
	}
	for k, n := range deleted {
		c.byKind[k] += n
	}
}

func (c *cleanupCount) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byKind = nil
}

// summary says how many objects of each kind were deleted ("deleted 2 plan, 1 Job").
func (c *cleanupCount) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byKind) == 0 {
		return "nothing was left to delete"
	}
	kinds := make([]string, 0, len(c.byKind))
	for k := range c.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", c.byKind[k], k)
	}
	return "deleted " + strings.Join(parts, ", ")
}
