package resolver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

// resOutcome is what one resolver reconcile found: the Resolved condition to
// apply, the status fields the resolver owns, and how to return.
type resOutcome struct {
	status    metav1.ConditionStatus
	reason    string
	message   string
	candidate string
	// handled is the resolve-requested-at value this reconcile handled (CR-11).
	handled string
	// transient is returned from Reconcile, so the work queue retries with backoff.
	transient error
}

func resWaiting(msg string) *resOutcome {
	return &resOutcome{status: metav1.ConditionFalse, reason: ReasonResolving, message: msg}
}

func resStalled(s *domain.Stall) *resOutcome {
	return &resOutcome{status: metav1.ConditionFalse, reason: string(s.Reason), message: s.Message}
}

// resRejectedOverride reports a stalled bundle Job AICR rejected for an
// override component the recipe does not list as OverridePathUnknown (RES-3);
// any other outcome is returned as it is.
func resRejectedOverride(out *resOutcome, unlisted []string) *resOutcome {
	if out.reason != string(domain.StallAICRInvalidRequest) {
		return out
	}
	return resStalled(domain.RejectedOverride(&domain.Stall{Reason: domain.StallAICRInvalidRequest, Message: out.message}, unlisted))
}

// resTransient reports a failure worth retrying with backoff (RES-6).
func resTransient(err error) *resOutcome {
	return &resOutcome{
		status: metav1.ConditionFalse, reason: ReasonResolving,
		message: "retrying after a transient failure: " + err.Error(), transient: err,
	}
}

// resStage is one AICR Job of the resolution.
type resStage struct {
	kind   ports.JobKind
	name   string
	args   []string
	inputs map[string][]byte
	// keepRole, when set, keeps the result in an ownerless ConfigMap named
	// like the Job and deletes the Job at once; otherwise the caller deletes
	// the Job once it recorded the result.
	keepRole string
}

// runStage returns the stage's result files, or the outcome to report while
// the Job runs or after it failed. A kept result short-circuits the Job.
func (r *Reconciler) runStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st resStage) (fs.FS, *resOutcome) {
	if st.keepRole != "" {
		if files, err := r.keptResult(ctx, cr, st); err != nil || files != nil {
			if err != nil {
				return nil, resTransient(err)
			}
			return files, nil
		}
	}
	ref := ports.JobRef{Name: st.name}
	js, err := r.Jobs.Status(ctx, ref)
	if errors.Is(err, ports.ErrJobNotFound) {
		spec := ports.JobSpec{
			Name: st.name, Kind: st.kind, Image: r.Config.Image, Args: st.args, Inputs: st.inputs,
			Owner: ports.ReleaseOwner{RuntimeUID: string(cr.UID)},
		}
		if _, err = r.Jobs.Start(ctx, spec); err != nil {
			return nil, resTransient(err)
		}
		r.event(cr, corev1.EventTypeNormal, EventResolveStageStarted, "aicr %s job %s started", st.kind, st.name)
		return nil, resWaiting(fmt.Sprintf("aicr %s job %s running", st.kind, st.name))
	}
	if err != nil {
		return nil, resTransient(err)
	}
	switch js.State {
	case ports.JobSucceeded:
		return r.finishStage(ctx, cr, st, js)
	case ports.JobFailed:
		return nil, r.failStage(ctx, st, js)
	case ports.JobRunning:
	}
	return nil, resWaiting(fmt.Sprintf("aicr %s job %s running", st.kind, st.name))
}

func (r *Reconciler) finishStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st resStage, js ports.JobStatus) (fs.FS, *resOutcome) {
	if _, err := r.Jobs.Output(ctx, ports.JobRef{Name: st.name}); errors.Is(err, ports.ErrUntrustedOutput) {
		return nil, r.untrustedOutput(ctx, st, err)
	}
	if s := domain.CheckAICRVersion(r.Config.AICRVersion, js.AICRVersion); s != nil {
		return nil, resStalled(&domain.Stall{Reason: s.Reason, Message: fmt.Sprintf("aicr %s job %s: %s", st.kind, st.name, s.Message)})
	}
	ref := ports.JobRef{Name: st.name}
	files, err := r.Jobs.Output(ctx, ref)
	if errors.Is(err, ports.ErrUntrustedOutput) {
		return nil, r.untrustedOutput(ctx, st, err)
	}
	if err != nil {
		return nil, resTransient(err)
	}
	if st.keepRole != "" {
		err = r.Jobs.Keep(ctx, ref, st.kept(cr))
		if errors.Is(err, ports.ErrForeignObject) {
			return nil, resStalled(&domain.Stall{Reason: domain.StallForeignObject, Message: err.Error()})
		}
		if err != nil {
			return nil, resTransient(err)
		}
		if err = r.Jobs.Delete(ctx, ref); err != nil {
			return nil, resTransient(err)
		}
	}
	r.event(cr, corev1.EventTypeNormal, EventResolveStageSucceeded, "aicr %s job %s succeeded", st.kind, st.name)
	return files, nil
}

// failStage classifies a failed Job (RES-4): a transient exit deletes the Job
// so the retry starts a fresh one; a terminal one keeps it for seven days.
func (r *Reconciler) failStage(ctx context.Context, st resStage, js ports.JobStatus) *resOutcome {
	code := js.ExitCode
	if code == 0 {
		code = 9 // killed before AICR exited: treated as canceled, which is transient
	}
	exit := domain.ClassifyAICRExit(code, js.FailureLog)
	ref := ports.JobRef{Name: st.name}
	if exit.Transient {
		if err := r.Jobs.Delete(ctx, ref); err != nil {
			return resTransient(err)
		}
		return resTransient(fmt.Errorf("aicr %s job %s: %s (exit code %d)", st.kind, st.name, exit.Category, js.ExitCode))
	}
	if err := r.Jobs.Retain(ctx, ref); err != nil {
		return resTransient(err)
	}
	return resStalled(&domain.Stall{Reason: exit.Stall.Reason, Message: fmt.Sprintf("aicr %s job %s failed: %s", st.kind, st.name, exit.Stall.Message)})
}

// untrustedOutput deletes a Job whose output the runner cannot prove the Job's own, so the
// stage runs again with a fresh Job and output; nothing of it is used.
func (r *Reconciler) untrustedOutput(ctx context.Context, st resStage, cause error) *resOutcome {
	if err := r.Jobs.Delete(ctx, ports.JobRef{Name: st.name}); err != nil {
		return resTransient(err)
	}
	return resTransient(fmt.Errorf("aicr %s job %s runs again, its output is not its own: %w", st.kind, st.name, cause))
}

// keptResult returns the files of the stage's kept result, or nil when there is none the
// runner can prove it kept for this runtime unchanged: anything else at that name is
// ignored (an Event says so) and the Job runs again.
func (r *Reconciler) keptResult(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st resStage) (fs.FS, error) {
	files, err := r.Jobs.Kept(ctx, st.kept(cr))
	if errors.Is(err, ports.ErrUntrustedOutput) {
		r.event(cr, corev1.EventTypeWarning, EventKeptResultIgnored, "kept %s result ignored, the job runs again: %s", st.kind, err)
		return nil, nil
	}
	return files, err
}

// kept names the stage's kept result for the runtime.
func (st resStage) kept(cr *aicrv1alpha1.ClusterRuntime) ports.KeptResult {
	return ports.KeptResult{Name: st.name, Role: st.keepRole, RuntimeUID: string(cr.UID)}
}
