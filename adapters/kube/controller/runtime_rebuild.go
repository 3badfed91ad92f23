package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;delete

// readPlan reads the plan of digest. The active plan whose plan ConfigMap is not found (an
// uncached read confirms it) is rebuilt from the engine objects (PLAN-7); one the cache does
// not hold yet (just rebuilt) is read uncached, so the runtime does not flap to a stall; a
// plan ConfigMap that exists but is unreadable, and a lost candidate (the resolver
// re-resolves it), stay stalls.
func (r *RuntimeReconciler) readPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation,
	digest string) (*domain.Plan, *domain.Stall, error) {
	plan, stall, err := r.plans.Read(ctx, digest, obs.uid)
	if err != nil || stall == nil || stall.Reason != domain.StallPlanUnreadable || digest != obs.active ||
		obs.engineStall != nil {
		return plan, stall, err
	}
	lost, err := r.planLost(ctx, digest)
	switch {
	case err != nil:
		return nil, stall, err
	case !lost:
		return NewPlanReader(r.creator.reader, r.plans.namespace).Read(ctx, digest, obs.uid)
	}
	return r.rebuildPlan(ctx, cr, obs, digest)
}

// planLost reports whether the plan ConfigMap of digest is not found by an uncached read.
func (r *RuntimeReconciler) planLost(ctx context.Context, digest string) (bool, error) {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		return false, nil
	}
	err = r.creator.reader.Get(ctx, types.NamespacedName{Namespace: r.plans.namespace, Name: name}, &corev1.ConfigMap{})
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("read plan %s: %w", digest, err)
	}
	return false, nil
}

// rebuildPlan rebuilds the lost plan of digest from the specs the engine objects record
// (domain.RebuildPlan: PlanUnreadable unless it has the digest) and writes it, with its values,
// through the resolver's create-once path under the planStore lock: source rebuilt, no
// recipe, no bundle reference. A resolved plan of the same digest written meanwhile is kept.
func (r *RuntimeReconciler) rebuildPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation,
	digest string) (*domain.Plan, *domain.Stall, error) {
	specs, err := r.ports.Engine.Specs(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("rebuild plan %s: deployment engine: %w", digest, err)
	}
	plan, stall := domain.RebuildPlan(obs.uid, digest, specs)
	if stall != nil {
		return nil, stall, nil
	}
	writer := &Resolver{Client: r.client, Reader: r.creator.reader, Recorder: r.recorder,
		Config: ResolverConfig{OperatorNamespace: r.plans.namespace}}
	if out := writer.writePlan(ctx, cr, resPlanWrite{plan: plan}); out != nil {
		if out.transient != nil {
			return nil, nil, fmt.Errorf("rebuild plan %s: %w", digest, out.transient)
		}
		return nil, &domain.Stall{Reason: domain.StallReason(out.reason), Message: "rebuild plan " + digest + ": " + out.message}, nil
	}
	r.recorder.Eventf(cr, corev1.EventTypeNormal, string(EventPlanRebuilt),
		"active plan %s rebuilt from %d engine objects: its plan ConfigMap was lost", digest, len(plan.Releases))
	return plan, nil, nil
}
