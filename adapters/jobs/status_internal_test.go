package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/ports"
)

var (
	created   = metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	scheduled = metav1.NewTime(created.Add(time.Second))
	notReady  = metav1.NewTime(created.Add(2 * time.Second))
)

func waitingContainer(reason, msg string) []corev1.ContainerStatus {
	return []corev1.ContainerStatus{{Name: ContainerName,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
}

// TestPodWaiting: a pending Pod reports the scheduler's Unschedulable condition since its
// transition, or its container's waiting reason since ContainersReady turned False (else its
// start, else its creation); a Pod that runs, or that nothing acted on yet, does not wait.
func TestPodWaiting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		want   *ports.JobWaiting
	}{
		{name: "unschedulable", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available", LastTransitionTime: scheduled}}},
			want: &ports.JobWaiting{Reason: "Unschedulable", Message: "0/3 nodes are available", Since: scheduled.Time}},
		{name: "image pull back-off since ContainersReady turned False", status: corev1.PodStatus{Phase: corev1.PodPending,
			StartTime: &scheduled, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: scheduled},
				{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, LastTransitionTime: notReady}},
			ContainerStatuses: waitingContainer("ImagePullBackOff", `Back-off pulling image "aicr"`)},
			want: &ports.JobWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "aicr"`, Since: notReady.Time}},
		{name: "ErrImagePull since the pod's start", status: corev1.PodStatus{Phase: corev1.PodPending, StartTime: &scheduled,
			ContainerStatuses: waitingContainer("ErrImagePull", "pull access denied")},
			want: &ports.JobWaiting{Reason: "ErrImagePull", Message: "pull access denied", Since: scheduled.Time}},
		{name: "CreateContainerConfigError since the pod's creation", status: corev1.PodStatus{Phase: corev1.PodPending,
			ContainerStatuses: waitingContainer("CreateContainerConfigError", `secret "s" not found`)},
			want: &ports.JobWaiting{Reason: "CreateContainerConfigError", Message: `secret "s" not found`, Since: created.Time}},
		{name: "the image-refs container waits for AICR, its init container", status: corev1.PodStatus{Phase: corev1.PodPending,
			StartTime: &scheduled, InitContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: ImageRefsContainerName,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}}},
		{name: "the aicr init container cannot pull its image", status: corev1.PodStatus{Phase: corev1.PodPending, StartTime: &scheduled,
			InitContainerStatuses: waitingContainer("ErrImagePull", "pull access denied")},
			want: &ports.JobWaiting{Reason: "ErrImagePull", Message: "pull access denied", Since: scheduled.Time}},
		{name: "the image-refs container cannot pull the operator image", status: corev1.PodStatus{Phase: corev1.PodPending,
			StartTime: &scheduled, ContainerStatuses: []corev1.ContainerStatus{{Name: ImageRefsContainerName,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "back-off"}}}}},
			want: &ports.JobWaiting{Reason: "ImagePullBackOff", Message: "back-off", Since: scheduled.Time}},
		{name: "a pod nothing acted on yet", status: corev1.PodStatus{}},
		{name: "a running pod", status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}, Status: tc.status}
			assert.Equal(t, tc.want, podWaiting(pod))
		})
	}
}

// TestReadTermination: the exit code, AICR's failure line and what killed the Pod from
// outside AICR, one case per kill kind.
func TestReadTermination(t *testing.T) {
	t.Parallel()
	terminated := func(code int32, reason, msg string) []corev1.ContainerStatus {
		return []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: code, Reason: reason, Message: msg}}}}
	}
	failedLine := `{"msg":"command failed","exitCode":2,"error":"[INVALID_REQUEST] bad"}`
	copyFailed := FailureRecord(errors.New("aicr exited 0 but wrote no --image-refs file"))
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		want   ports.JobStatus
	}{
		{name: "AICR's own exit", status: corev1.PodStatus{ContainerStatuses: terminated(2, "Error", "starting\n"+failedLine)},
			want: ports.JobStatus{ExitCode: 2, FailureLog: failedLine}},
		{name: "OOMKilled", status: corev1.PodStatus{ContainerStatuses: terminated(137, "OOMKilled", "")},
			want: ports.JobStatus{ExitCode: 137, Killed: "OOMKilled"}},
		{name: "evicted before the container ran", status: corev1.PodStatus{Reason: "Evicted"},
			want: ports.JobStatus{Killed: "Evicted"}},
		{name: "disrupted by a drain", status: corev1.PodStatus{ContainerStatuses: terminated(143, "Error", ""),
			Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"}}},
			want: ports.JobStatus{ExitCode: 143, Killed: "DisruptionTarget (EvictionByEvictionAPI)"}},
		{name: "a signal alone", status: corev1.PodStatus{ContainerStatuses: terminated(143, "Error", "")},
			want: ports.JobStatus{ExitCode: 143}},
		{name: "AICR's own exit as the init container", status: corev1.PodStatus{InitContainerStatuses: terminated(2, "Error", failedLine)},
			want: ports.JobStatus{ExitCode: 2, FailureLog: failedLine}},
		{name: "the image-refs container after AICR exited 0", status: corev1.PodStatus{
			InitContainerStatuses: terminated(0, "Completed", ""),
			ContainerStatuses: []corev1.ContainerStatus{{Name: ImageRefsContainerName, State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: CopyFailedExitCode, Reason: "Error", Message: copyFailed}}}}},
			want: ports.JobStatus{ExitCode: CopyFailedExitCode, FailureLog: copyFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var st ports.JobStatus
			readTermination(&corev1.Pod{Status: tc.status}, &st)
			assert.Equal(t, tc.want, st)
		})
	}
}
