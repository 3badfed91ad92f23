package resolver

import (
	"context"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// snapshotStage takes (or reuses) the snapshot and checks the declared criteria against it.
func (r *Reconciler) snapshotStage(ctx context.Context, run *resolution) *outcome {
	cr := run.cr
	name := shared.SnapshotJob(cr, r.release())
	snapshot, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobSnapshot, Name: name, KeepRole: aicrv1alpha1.RoleSnapshot,
		Args: shared.SnapshotArgs(r.Snapshots.OutputRef(name)), Placement: shared.JobPlacement(cr.Spec.Placement.Accelerated),
	})
	if out != nil {
		return out
	}
	facts, stall, err := configdoc.SnapshotFacts(snapshot)
	if err != nil {
		return stalled(domain.SnapshotUnreadable(err.Error()))
	}
	if stall != nil {
		return stalled(stall)
	}
	if s := domain.CheckSnapshot(specCriteria(cr), facts); s != nil {
		return stalled(s)
	}
	run.snapshotTaken, run.snapshotJob, run.snapshot = true, name, snapshot
	return nil
}
