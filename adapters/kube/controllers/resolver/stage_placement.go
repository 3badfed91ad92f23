package resolver

import (
	"context"

	"github.com/nvidia/aicr-operator/domain"
)

// checkPlacement checks the placement's tolerations and node groups (RES-2, RES-3).
func (r *Reconciler) checkPlacement(ctx context.Context, res *resolution) *outcome {
	if s := domain.CheckTolerations(placementTolerations(res.cr.Spec.Placement)); s != nil {
		return stalled(s)
	}
	stall, err := r.nodes.check(ctx, r.Reader, nodePlacement(res.cr.Spec.Placement))
	if err != nil {
		return transient(err)
	}
	if stall != nil {
		return stalled(stall)
	}
	res.placementChecked = true
	return nil
}
