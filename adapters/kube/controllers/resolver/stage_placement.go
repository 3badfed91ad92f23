package resolver

import (
	"context"

	"github.com/NVIDIA/aicr/domain"
)

// checkPlacement checks the placement's tolerations and node groups (RES-2, RES-3).
func (r *Reconciler) checkPlacement(ctx context.Context, run *resolution) *outcome {
	if s := domain.CheckTolerations(placementTolerations(run.cr.Spec.Placement)); s != nil {
		return stalled(s)
	}
	stall, err := r.nodes.check(ctx, r.Reader, nodePlacement(run.cr.Spec.Placement))
	if err != nil {
		return transient(err)
	}
	if stall != nil {
		return stalled(stall)
	}
	run.placementChecked = true
	return nil
}
