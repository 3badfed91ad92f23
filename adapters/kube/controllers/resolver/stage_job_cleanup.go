package resolver

import (
	"context"

	"github.com/NVIDIA/aicr/app"
)

// cleanupJobs deletes the bundle Job and the upgrade-check Job, if one ran, once the plan they
// rendered is recorded (RES-7).
func (r *Reconciler) cleanupJobs(ctx context.Context, run *resolution) *outcome {
	for _, job := range []string{run.bundleJob, run.upgrade.job} {
		if job == "" {
			continue
		}
		if err := app.DeleteStageJobs(ctx, r.Jobs, job); err != nil {
			return transient(err)
		}
	}
	run.jobsCleaned = true
	return nil
}
