package runtime

import (
	"context"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// applySuspension applies spec.suspendEngine to the runtime's engine objects: the domain decides
// from the switch and the live engine objects (domain.DecideSuspension) and each write goes
// through DeploymentEngine.Suspend, as the runtime-level controller; the rollout controller never
// writes the suspension, it only starts no step while the switch is set. The first refusal is
// the runtime's EngineSuspensionRefused stall (domain.SuspensionRefused); the other writes are
// still made. Nothing is decided or written while the engine cannot be used or nothing read back
// can be trusted (AdmissionPolicyMissing). A transient engine error is returned.
func (r *Reconciler) applySuspension(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation) error {
	if obs.engineStall != nil || obs.untrusted {
		return nil
	}
	in := domain.SuspensionInput{Suspend: cr.Spec.SuspendEngine, RuntimeUID: obs.uid, Live: obs.live}
	if ro := obs.inProgress; ro != nil {
		in.Rollout, in.RolloutPlan = ro.Name, ro.Spec.ToPlanDigest
	}
	d := domain.DecideSuspension(in)
	obs.suspension = &d
	owner := ports.ReleaseOwner{RuntimeUID: obs.uid}
	for _, ref := range d.Writes {
		stall, err := domain.SuspensionRefused(ref, d.Suspend, r.ports.Engine.Suspend(ctx, ref, owner, d.Suspend))
		if err != nil {
			return err
		}
		if obs.suspensionStall == nil {
			obs.suspensionStall = stall
		}
	}
	return nil
}

// suspensionPending reports that the engine objects do not show spec.suspendEngine yet: the
// runtime looks again, since an engine without a watch (or a sync that has to end first) may not
// announce the change.
func suspensionPending(obs *observation) bool {
	return obs.suspensionStall != nil || (obs.suspension != nil && !obs.suspension.Holds())
}
