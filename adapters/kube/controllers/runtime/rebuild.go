package runtime

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;delete

// readPlan reads the plan of digest. A plan the cached read finds unreadable is read again
// uncached: the cache may not hold one written since (just rebuilt or resolved), and the
// runtime must not flap to a stall. The active plan whose plan ConfigMap is not found then
// is rebuilt from the engine objects (PLAN-7); a plan ConfigMap that exists but is
// unreadable, and a lost candidate (the resolver re-resolves it), stay stalls.
func (r *Reconciler) readPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation,
	digest string) (*configdoc.Plan, *domain.Stall, error) {
	doc, stall, err := r.plans.Document(ctx, digest, obs.uid)
	if err != nil || stall == nil || stall.Reason() != domain.StallPlanUnreadable {
		return doc, stall, err
	}
	live := planstore.NewReader(r.creator.reader, r.plans.Namespace(), r.ports.Sealer)
	doc, stall, missing, err := live.Lookup(ctx, digest, obs.uid)
	switch {
	case missing && digest == obs.active && obs.engineStall == nil:
		plan, rebuildStall, rebuildErr := r.rebuildPlan(ctx, cr, obs, digest)
		if plan == nil {
			return nil, rebuildStall, rebuildErr
		}
		return &configdoc.Plan{Plan: *plan}, nil, nil // rebuilt: no recipe, no render flags
	case missing:
		return nil, plantrust.Unreadable("plan %s: ConfigMap %s/%s not found", digest, r.plans.Namespace(), planName(digest)), nil
	}
	return doc, stall, err
}

// rebuildPlan rebuilds the lost plan of digest from the specs the engine objects record
// (domain.RebuildPlan: PlanUnreadable unless it has the digest) and writes it, with its values,
// through the planstore.Writer the resolver uses (create-once, under planstore.Writes): source rebuilt, no
// recipe, no bundle reference. A resolved plan of the same digest written meanwhile is kept.
func (r *Reconciler) rebuildPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation,
	digest string) (*domain.Plan, *domain.Stall, error) {
	specs, err := r.ports.Engine.Specs(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("rebuild plan %s: deployment engine: %w", digest, err)
	}
	plan, stall := domain.RebuildPlan(obs.uid, digest, specs)
	if stall != nil {
		return nil, stall, nil
	}
	writer := &planstore.Writer{Client: r.client, Reader: r.creator.reader, Recorder: r.recorder, Namespace: r.plans.Namespace(),
		Sealer: r.ports.Sealer}
	if stall, err := writer.Write(ctx, cr, planstore.Write{Plan: plan}); stall != nil || err != nil {
		if err != nil {
			return nil, nil, fmt.Errorf("rebuild plan %s: %w", digest, err)
		}
		return nil, stall.Reworded("rebuild plan "+digest+": ", ""), nil
	}
	r.recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventPlanRebuilt.String(),
		"active plan %s rebuilt from %d engine objects: its plan ConfigMap was lost", digest, len(plan.Releases))
	return plan, nil, nil
}

// planName is the plan ConfigMap name of digest, for messages.
func planName(digest string) string {
	name, _ := configdoc.PlanConfigMapName(digest)
	return name
}
