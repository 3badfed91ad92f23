package jobexec

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// How a Pod is killed from outside AICR (Result.Kill), as the kubelet and the API server
// record it.
const (
	// KillOOM: the OOM killer ends the container (terminated reason OOMKilled, exit code 137).
	KillOOM = "OOMKilled"
	// KillEvicted: the kubelet evicts the Pod under node pressure (Pod reason Evicted).
	KillEvicted = "Evicted"
	// KillDisrupted: the Pod is evicted through the API, as a drain does (condition
	// DisruptionTarget, reason EvictionByEvictionAPI, exit code 143).
	KillDisrupted = "DisruptionTarget"
)

// Unschedulable is the Waiting reason of a Pod no node can take (condition PodScheduled=False).
const Unschedulable = corev1.PodReasonUnschedulable

// Waiting is a Pod that does not run: Reason Unschedulable (the scheduler's condition) or a
// container waiting reason (ImagePullBackOff, ErrImagePull, CreateContainerConfigError), with
// the message the scheduler or the kubelet would give; ports.JobPodNotCreated starts the Job
// without creating its Pod, as when a quota or an admission policy refuses it.
type Waiting struct {
	Reason  string
	Message string
}

// UseClock stamps every time the executor writes (Pod and Job conditions, start and finish
// times) from clock, so a test that fakes the operator's clock fakes the cluster's too.
func (e *Executor) UseClock(clock ports.Clock) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clock = clock
}

func (e *Executor) now() metav1.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.clock == nil {
		return metav1.Now()
	}
	return metav1.NewTime(e.clock.Now().Truncate(time.Second))
}

// wait leaves the Job's Pod pending as w says, as the scheduler or the kubelet does, and marks
// the Job active; a Pod already waiting for the same reason is left as it is, so the time it
// started waiting stays.
func (e *Executor) wait(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, w Waiting) error {
	if podWaitingFor(pod) == w.Reason {
		return nil
	}
	now := e.now()
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus, reason, msg string) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: now}
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	if w.Reason == Unschedulable {
		pod.Status.Conditions = []corev1.PodCondition{cond(corev1.PodScheduled, corev1.ConditionFalse, w.Reason, w.Message)}
	} else {
		pod.Status.StartTime = &now
		pod.Status.Conditions = []corev1.PodCondition{
			cond(corev1.PodScheduled, corev1.ConditionTrue, "", ""),
			cond(corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [aicr]"),
			cond(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [aicr]"),
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: jobs.ContainerName, Image: e.image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}},
		}}
	}
	if err := e.kubelet.Status().Update(ctx, pod); err != nil {
		return fmt.Errorf("set waiting pod status: %w", err)
	}
	return e.start(ctx, job)
}

// start records the Job as started, as the Job controller does when it first syncs an
// unsuspended Job (startTime), whether or not it could create the Job's Pod.
func (e *Executor) start(ctx context.Context, job *batchv1.Job) error {
	if job.Status.StartTime != nil {
		return nil
	}
	now := e.now()
	job.Status.StartTime = &now
	if err := e.jobController.Status().Update(ctx, job); err != nil {
		return fmt.Errorf("set job status: %w", err)
	}
	return nil
}

// podWaitingFor is the reason the Pod waits for, or "".
func podWaitingFor(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Reason
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Waiting != nil {
			return cs.State.Waiting.Reason
		}
	}
	return ""
}

// killed sets on a terminated Pod status what kill leaves: the container's OOMKilled reason,
// the Pod's Evicted reason, or the DisruptionTarget condition of an eviction through the API.
func killed(st *corev1.PodStatus, kill string, now metav1.Time) {
	t := st.ContainerStatuses[0].State.Terminated
	switch kill {
	case KillOOM:
		t.Reason = KillOOM
	case KillEvicted:
		st.Reason, st.Message = KillEvicted, "The node was low on resource: memory."
	case KillDisrupted:
		st.Conditions = append(st.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: now})
	}
}
