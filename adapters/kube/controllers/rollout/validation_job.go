package rollout

import (
	"context"
	"fmt"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// deleteRecordedValidation deletes the validation Job whose report a success this reconcile
// decided and persisted recorded (the evidence digest on the rollout): RES-7, a Job goes with
// propagationPolicy Foreground once its outputs are recorded. A failed validation's Job is
// kept seven days instead (the domain retains it); a crash before this delete leaves the Job
// to its 24 h TTL.
func (r *Reconciler) deleteRecordedValidation(ctx context.Context, out domain.Outcome) error {
	if !out.Ended || out.EvidenceDigest == "" || out.Status.ValidationRun == "" {
		return nil
	}
	if err := r.ports.Jobs.Delete(ctx, ports.JobRef{Name: out.Status.ValidationRun}); err != nil {
		return fmt.Errorf("delete recorded validation run %s: %w", out.Status.ValidationRun, err)
	}
	return nil
}
