package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/ports"
)

// Status reports the Job's state, the AICR version its output ConfigMap carries (only an
// output verifiedOutput proves the Job's own counts) and, for a failed Job, the exit code and
// AICR's last JSON "command failed" line from the terminated state of its Pod.
func (r *Runner) Status(ctx context.Context, ref ports.JobRef) (ports.JobStatus, error) {
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return ports.JobStatus{}, err
	}
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		// Start creates a Job suspended and resumes it once its run-scoped objects exist: one
		// still suspended was never started to the end (the answer to its create was lost, or
		// the operator stopped in between), and only a Start again, which finds the Job and
		// completes it, lets it run.
		return ports.JobStatus{}, fmt.Errorf("job %s was created but its start did not complete: %w", ref.Name, ports.ErrJobNotFound)
	}
	st := ports.JobStatus{}
	st.State, st.Message = jobState(job)
	switch out, outErr := r.verifiedOutput(ctx, job); {
	case outErr == nil:
		st.AICRVersion = out.Labels[VersionLabel]
	case !errors.Is(outErr, ports.ErrJobNotFound) && !errors.Is(outErr, ports.ErrUntrustedOutput):
		return st, outErr
	}
	if st.State == ports.JobFailed {
		if err = r.readTermination(ctx, job, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// jobState reads the Job's finished conditions: Succeeded or Failed with the condition's
// message, else Running.
func jobState(job *batchv1.Job) (ports.JobState, string) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return ports.JobSucceeded, c.Message
		case batchv1.JobFailed:
			return ports.JobFailed, c.Message
		case batchv1.JobSuspended, batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet:
		}
	}
	return ports.JobRunning, ""
}

func (r *Runner) getJob(ctx context.Context, ref ports.JobRef) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: ref.Name}, job)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("job %s: %w", ref.Name, ports.ErrJobNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", ref.Name, err)
	}
	return job, nil
}

// readTermination fills ExitCode and FailureLog from the last terminated
// state of the aicr container among the Job's Pods. A Pod killed before its
// container ran leaves ExitCode 0, which the caller treats as unknown.
func (r *Runner) readTermination(ctx context.Context, job *batchv1.Job, st *ports.JobStatus) error {
	pods := &corev1.PodList{}
	if err := r.reader.List(ctx, pods, client.InNamespace(job.Namespace),
		client.MatchingLabels{JobNameLabel: job.Name}); err != nil {
		return fmt.Errorf("list pods of job %s: %w", job.Name, err)
	}
	var last *corev1.ContainerStateTerminated
	for i := range pods.Items {
		for _, cs := range pods.Items[i].Status.ContainerStatuses {
			t := cs.State.Terminated
			if cs.Name != ContainerName || t == nil {
				continue
			}
			if last == nil || last.FinishedAt.Before(&t.FinishedAt) {
				last = t
			}
		}
	}
	if last == nil {
		return nil
	}
	st.ExitCode = int(last.ExitCode)
	st.FailureLog = failureLine(last.Message)
	return nil
}

// failureLine returns the last line of a log tail that is AICR's JSON
// "command failed" record, or "".
func failureLine(tail string) string {
	lines := strings.Split(tail, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "{") && strings.Contains(l, `"command failed"`) {
			return l
		}
	}
	return ""
}

func isJobNotFound(err error) bool { return errors.Is(err, ports.ErrJobNotFound) }
