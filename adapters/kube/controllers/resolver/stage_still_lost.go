package resolver

import (
	"context"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// stillLost stalls a plan that was resolved again to digest when a part of it is still lost
// (domain.StillLost), so the resolver does not resolve it again and again.
func (r *Reconciler) stillLost(ctx context.Context, run *resolution) *outcome {
	digest := run.plan.Digest
	_, parts, stall, err := planstore.NewReader(r.Reader, r.Config.OperatorNamespace, r.Config.Sealer).Parts(ctx, digest, string(run.cr.UID))
	if err != nil {
		return transient(err)
	}
	if stall == nil {
		name, _ := configdoc.PlanConfigMapName(digest)
		if s := domain.StillLost(digest, name, parts); s != nil {
			return stalled(s)
		}
	}
	run.stillLostChecked = true
	return nil
}
