package runtime

import (
	"context"
	"fmt"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// observeDrift judges the engine objects against the plans, never against themselves: the spec
// digest the engine renders for each release of the active and target plans (releasesReady,
// available), the drift of
// those no rollout rewrites, none running and none due toward another target
// (EngineObjectDrifted), and the engine objects in the operator's
// project that neither the active nor the target plan names. It reads nothing while the engine
// or the plans are stalled.
func (r *Reconciler) observeDrift(ctx context.Context, obs *observation) error {
	if obs.engineStall != nil || obs.planStall != nil {
		return nil
	}
	var planned []ports.ReleaseRef
	for _, p := range []*domain.Plan{obs.activePlan, obs.targetPlan} {
		if p == nil {
			continue
		}
		for _, rel := range p.Releases {
			planned = append(planned, rel.Ref())
		}
	}
	unplanned, err := r.ports.Engine.Unplanned(ctx, planned)
	if stall := domain.PortStall("deployment engine", err); stall != nil {
		obs.engineStall = stall
		return nil
	}
	if err != nil {
		return fmt.Errorf("deployment engine: %w", err)
	}
	obs.unplanned = append([]string{}, unplanned...)
	if obs.targetPlan != nil {
		if obs.targetPlanned, err = domain.PlannedDigests(r.ports.Engine, obs.targetPlan); err != nil {
			return fmt.Errorf("render the specs of plan %s: %w", obs.target, err)
		}
	}
	if obs.activePlan == nil {
		return nil
	}
	if obs.planned, err = domain.PlannedDigests(r.ports.Engine, obs.activePlan); err != nil {
		return fmt.Errorf("render the specs of plan %s: %w", obs.active, err)
	}
	if obs.inProgress == nil && obs.target == obs.active { // a rollout toward another target writes them again
		if drifted := domain.DriftedReleases(obs.activePlan, obs.uid, obs.live, obs.planned); len(drifted) > 0 {
			obs.driftStall = domain.SpecDrifted(obs.active, drifted)
		}
	}
	return nil
}
