package runtime

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// +kubebuilder:rbac:groups=operator.aicr.run,resources=runtimerollouts,verbs=patch

// confirmOutcome trusts the Succeeded label of ro, the newest rollout carrying one, only when
// the operator's seal over it verifies. A label without a valid seal (another identity wrote it
// while the approval binding was missing, or it predates the seal key or was made under another
// key) is judged again from the engine objects (domain.ConfirmSucceeded): when they show ro's
// target plan live, the operator seals the outcome; otherwise the runtime stalls
// OutcomeUnverified and the active plan is not used.
func (r *Reconciler) confirmOutcome(ctx context.Context, obs *observation, ro *aicrv1alpha1.RuntimeRollout) (*domain.Stall, error) {
	if shared.VerifyOutcome(r.ports.Sealer, ro) == nil {
		return nil, nil
	}
	if obs.engineStall != nil {
		return domain.OutcomeUnverified(ro.Name, "the engine objects cannot be read: "+obs.engineStall.Message()), nil
	}
	specs, err := r.ports.Engine.Specs(ctx)
	if err != nil {
		return nil, fmt.Errorf("confirm the outcome of %s: deployment engine: %w", ro.Name, err)
	}
	if stall := domain.ConfirmSucceeded(ro.Name, obs.uid, ro.Spec.ToPlanDigest, specs); stall != nil {
		return stall, nil
	}
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	shared.SealOutcome(r.ports.Sealer, ro)
	if err := r.client.Patch(ctx, ro, patch); err != nil {
		return nil, fmt.Errorf("seal the confirmed outcome of %s: %w", ro.Name, err)
	}
	return nil, nil
}

// newestSealedSuccess is the target plan of the newest rollout (rollouts oldest first) whose
// Succeeded label carries the operator's seal; empty when there is none.
func (r *Reconciler) newestSealedSuccess(rollouts []aicrv1alpha1.RuntimeRollout) string {
	for i := len(rollouts) - 1; i >= 0; i-- {
		ro := &rollouts[i]
		if ro.Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded) && shared.VerifyOutcome(r.ports.Sealer, ro) == nil {
			return ro.Spec.ToPlanDigest
		}
	}
	return ""
}
