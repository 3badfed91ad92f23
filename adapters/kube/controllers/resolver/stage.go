package resolver

import (
	"context"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

// outcome is what one resolver reconcile found: the Resolved condition to
// apply, the status fields the resolver owns, and how to return.
type outcome struct {
	status    metav1.ConditionStatus
	reason    string
	message   string
	candidate string
	// handled is the resolve-requested-at value this reconcile handled (CR-11).
	handled string
	// transient is returned from Reconcile, so the work queue retries with backoff.
	transient error
}

func waiting(msg string) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: ReasonResolving, message: msg}
}

func stalled(s *domain.Stall) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: string(s.Reason), message: s.Message}
}

// rejectedOverride reports a stalled bundle Job AICR rejected for an
// override component the recipe does not list as OverridePathUnknown (RES-3);
// any other outcome is returned as it is.
func rejectedOverride(out *outcome, unlisted []string) *outcome {
	if out.reason != string(domain.StallAICRInvalidRequest) {
		return out
	}
	return stalled(domain.RejectedOverride(&domain.Stall{Reason: domain.StallAICRInvalidRequest, Message: out.message}, unlisted))
}

// transient reports a failure worth retrying with backoff (RES-6).
func transient(err error) *outcome {
	return &outcome{
		status: metav1.ConditionFalse, reason: ReasonResolving,
		message: "retrying after a transient failure: " + err.Error(), transient: err,
	}
}

// runStage runs the stage through the app's StageRunner, on the system node group unless the
// stage names its own, records what it did as Events and returns the stage's result files, or
// the outcome to report while the Job runs or after it failed.
func (r *Reconciler) runStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st app.Stage) (fs.FS, *outcome) {
	jobs := r.Jobs
	if st.Kind == ports.JobSnapshot {
		jobs = r.Snapshots
	}
	if st.Placement == nil {
		st.Placement = shared.JobPlacement(cr.Spec.Placement.System)
	}
	run := app.StageRunner{Jobs: jobs, Image: r.Config.Image, AICRVersion: r.Config.AICRVersion, Clock: r.Clock}.Run(ctx, string(cr.UID), st)
	for _, e := range run.Events {
		typ := corev1.EventTypeNormal
		if e.Warning {
			typ = corev1.EventTypeWarning
		}
		r.event(cr, typ, e.Reason, "%s", e.Message)
	}
	switch {
	case run.Transient != nil:
		return nil, transient(run.Transient)
	case run.Stall != nil:
		return nil, stalled(run.Stall)
	case run.Waiting != "":
		return nil, waiting(run.Waiting)
	}
	return run.Files, nil
}
