package trust_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAttack_StatusWriterCompletesAJob: an identity granted jobs/status in the Job namespace
// marks a running AICR Job complete, so the stage would read an output AICR never wrote.
func TestAttack_StatusWriterCompletesAJob(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-complete")
	ctx := context.Background()
	job := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: "attack-complete"}, job))
	now := metav1.Now()
	job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	refused(t, as(jobStatusUser).Status().Update(ctx, job), "RES-8: the status of a Job in the AICR Job namespaces is written only by the Job controller")
}

// TestAttack_StatusWriterEndsAJobPod: the same identity writes a Pod's terminated state, the
// exit code and termination message the operator reads as the Job's result and bundle digest.
func TestAttack_StatusWriterEndsAJobPod(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-exit")
	pod := w.jobPod(t, "attack-exit")
	pod.Status.Phase = corev1.PodSucceeded
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "aicr", Image: aicrImage, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Message: "sha256:" + strings.Repeat("0", 64)}}}}
	refused(t, as(jobStatusUser).Status().Update(context.Background(), pod), "RES-8: the status of a Pod in the AICR Job namespaces is written only by its kubelet")
}

// TestAttack_StatusWriterBindsAJobPod: binding an AICR Pod to a node of the attacker's choice
// puts the Job's credentials and result on that node.
func TestAttack_StatusWriterBindsAJobPod(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-bind")
	pod := w.jobPod(t, "attack-bind")
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: jobsNS},
		Target: corev1.ObjectReference{Kind: "Node", Name: "attacker-node"}}
	refused(t, as(jobStatusUser).SubResource("binding").Create(context.Background(), pod, binding),
		"RES-8: a Pod in the AICR Job namespaces is bound to a node only by the scheduler")
}

// TestSchedulerReportsAnUnschedulableJobPod: the status policy keeps the control plane's own
// writes: the scheduler records why an AICR Job's Pod cannot be placed (its PodScheduled
// condition), which the operator's JobPodNotRunning stall shows.
func TestSchedulerReportsAnUnschedulableJobPod(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "unschedulable")
	pod := w.jobPod(t, "unschedulable")
	scheduler := as("system:kube-scheduler", "system:authenticated")
	// The simulated kubelet may write the Pod's status meanwhile: update the latest one.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := scheduler.Get(context.Background(), client.ObjectKeyFromObject(pod), pod); err != nil {
			return err
		}
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}}
		return scheduler.Status().Update(context.Background(), pod)
	}))
}
