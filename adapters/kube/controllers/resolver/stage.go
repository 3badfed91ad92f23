package resolver

import (
	"context"
	"io/fs"

	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// runStage runs the stage through the app's StageRunner, on the system node group unless the
// stage names its own, records what it did as Events and returns the stage's result files, or
// the outcome to report while the Job runs or after it failed.
func (r *Reconciler) runStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st app.Stage) (fs.FS, *outcome) {
	files, _, out := r.runStageJob(ctx, cr, st)
	return files, out
}

// runStageJob is runStage that also returns the UID of the Job whose output the files are.
func (r *Reconciler) runStageJob(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st app.Stage) (fs.FS, string, *outcome) {
	jobs := r.Jobs
	if st.Kind == ports.JobSnapshot {
		jobs = r.Snapshots
	}
	if st.Placement == nil {
		st.Placement = shared.JobPlacement(cr.Spec.Placement.System)
	}
	result := app.StageRunner{Jobs: jobs, Image: r.Config.Image, AICRVersion: r.Config.AICRVersion, Clock: r.Clock}.Run(ctx, string(cr.UID), st)
	for _, e := range result.Events {
		typ := corev1.EventTypeNormal
		if e.Warning {
			typ = corev1.EventTypeWarning
		}
		r.event(cr, typ, e.Reason, "%s", e.Message)
	}
	switch {
	case result.Transient != nil:
		return nil, "", transient(result.Transient)
	case result.Stall != nil:
		return nil, "", stalled(result.Stall)
	case result.Waiting != "":
		return nil, "", waiting(result.Waiting)
	}
	return result.Files, result.JobUID, nil
}

// fileStage runs a stage whose output is one artifact file (ports.JobArtifactFile).
func (r *Reconciler) fileStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st app.Stage) ([]byte, *outcome) {
	files, out := r.runStage(ctx, cr, st)
	if out != nil {
		return nil, out
	}
	data, err := fs.ReadFile(files, ports.JobArtifactFile)
	if err != nil {
		return nil, stalled(domain.ArtifactMissing(string(st.Kind), st.Name, ports.JobArtifactFile))
	}
	return data, nil
}
