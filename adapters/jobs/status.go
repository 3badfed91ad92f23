package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/ports"
)

// Status reports the Job's state, the AICR version its output ConfigMap reports (reportedVersion; only an
// output verifiedOutput proves the Job's own and whose label and artifact agree counts) and what its Pod shows: for a failed Job
// the exit code, AICR's last JSON "command failed" line and what killed the Pod from outside
// AICR; for a running Job why its Pod does not run yet, in the Pod's own words, or that a
// started Job has no Pod at all (ports.JobPodNotCreated, since the Job's startTime).
func (r *Runner) Status(ctx context.Context, ref ports.JobRef) (ports.JobStatus, error) {
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return ports.JobStatus{}, err
	}
	st := jobStatus(job)
	st.UID = string(job.UID)
	if job.DeletionTimestamp != nil {
		st.DeletingSince = job.DeletionTimestamp.Time
		if st.State == ports.JobRunning {
			// A finalizer (an orphan delete, a pod's) can hold a Job for good: it never runs again.
			st.Message = fmt.Sprintf("job %s is being deleted", ref.Name)
			return st, nil
		}
	}
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		// Start creates a Job suspended and resumes it once its run-scoped objects exist: one
		// still suspended was never started to the end (the answer to its create was lost, or
		// the operator stopped in between), and only a Start again, which finds the Job and
		// completes it, lets it run.
		return ports.JobStatus{}, fmt.Errorf("job %s was created but its start did not complete: %w", ref.Name, ports.ErrJobNotFound)
	}
	switch out, outErr := r.verifiedOutput(ctx, job); {
	case outErr == nil:
		// An output whose label and artifact disagree reports no version; Output refuses it.
		st.AICRVersion, _ = reportedVersion(out.Labels, out.Data)
	case !errors.Is(outErr, ports.ErrOutputLost) && !errors.Is(outErr, ports.ErrUntrustedOutput):
		return st, outErr
	}
	if st.State == ports.JobSucceeded {
		return st, nil
	}
	pod, err := r.lastPod(ctx, job)
	switch {
	case err != nil:
		return st, err
	case pod == nil && st.State == ports.JobRunning && job.Status.StartTime != nil:
		st.Waiting = &ports.JobWaiting{Reason: ports.JobPodNotCreated, Since: job.Status.StartTime.Time,
			Message: "the Job controller started the Job but created no pod"}
	case pod == nil:
	case st.State == ports.JobFailed:
		readTermination(pod, &st)
	default:
		st.Waiting = podWaiting(pod)
	}
	return st, nil
}

// jobState reads the Job's state and message from its finished conditions (jobStatus).
func jobState(job *batchv1.Job) (ports.JobState, string) {
	st := jobStatus(job)
	return st.State, st.Message
}

// jobStatus reads the Job's finished conditions: Succeeded or Failed with the condition's
// message and time (a Failed condition of reason DeadlineExceeded says the deadline stopped
// it), else Running.
func jobStatus(job *batchv1.Job) ports.JobStatus {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return ports.JobStatus{State: ports.JobSucceeded, Message: c.Message, FinishedAt: c.LastTransitionTime.Time}
		case batchv1.JobFailed:
			return ports.JobStatus{State: ports.JobFailed, Message: c.Message, FinishedAt: c.LastTransitionTime.Time,
				DeadlineExceeded: c.Reason == batchv1.JobReasonDeadlineExceeded}
		case batchv1.JobSuspended, batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet:
		}
	}
	return ports.JobStatus{State: ports.JobRunning}
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

// lastPod returns the Job's most recently created Pod (label batch.kubernetes.io/job-name),
// or nil when it has none.
func (r *Runner) lastPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := r.reader.List(ctx, pods, client.InNamespace(job.Namespace),
		client.MatchingLabels{JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("list pods of job %s: %w", job.Name, err)
	}
	var last *corev1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; last == nil || last.CreationTimestamp.Before(&p.CreationTimestamp) {
			last = p
		}
	}
	return last, nil
}

// readTermination fills ExitCode and FailureLog from the terminated state of the aicr
// container, or of the image-refs container after an aicr init container that exited 0, and
// Killed from what killed the Pod from outside AICR: the OOM killer, an eviction, a disruption
// (preemption, drain, taint). A Pod killed before its container ran leaves ExitCode 0, which
// the caller treats as unknown.
func readTermination(pod *corev1.Pod, st *ports.JobStatus) {
	for _, cs := range jobContainers(pod) {
		if t := cs.State.Terminated; t != nil && st.ExitCode == 0 {
			st.ExitCode = int(t.ExitCode)
			st.FailureLog = failureLine(t.Message)
			if t.Reason == "OOMKilled" {
				st.Killed = t.Reason
			}
		}
	}
	if pod.Status.Reason == "Evicted" {
		st.Killed = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && st.Killed == "" {
			st.Killed = string(c.Type) + " (" + c.Reason + ")"
		}
	}
}

// podWaiting reports why a pending Pod does not run: not scheduled (PodScheduled=False,
// Unschedulable, since that condition's transition), or its aicr or image-refs container
// waiting (since the ContainersReady condition's transition, else the Pod's start). Nil for a
// Pod that runs or that nothing has acted on yet.
func podWaiting(pod *corev1.Pod) *ports.JobWaiting {
	if pod.Status.Phase != corev1.PodPending && pod.Status.Phase != "" {
		return nil
	}
	since := pod.CreationTimestamp.Time
	if pod.Status.StartTime != nil {
		since = pod.Status.StartTime.Time
	}
	for _, c := range pod.Status.Conditions {
		switch {
		case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable:
			return &ports.JobWaiting{Reason: c.Reason, Message: c.Message, Since: c.LastTransitionTime.Time}
		case c.Type == corev1.ContainersReady && c.Status == corev1.ConditionFalse:
			since = c.LastTransitionTime.Time
		}
	}
	for _, cs := range jobContainers(pod) {
		// PodInitializing: the image-refs container waits for AICR, its init container, to end.
		if w := cs.State.Waiting; w != nil && w.Reason != "PodInitializing" {
			return &ports.JobWaiting{Reason: w.Reason, Message: w.Message, Since: since}
		}
	}
	return nil
}

// jobContainers returns the statuses of the Pod's aicr and image-refs containers, in the order
// they run.
func jobContainers(pod *corev1.Pod) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, cs := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		if cs.Name == ContainerName || cs.Name == ImageRefsContainerName {
			out = append(out, cs)
		}
	}
	return out
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
