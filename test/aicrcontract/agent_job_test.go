package aicrcontract_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// contractRun is the run ID of the agent Job `aicr validate` deploys in these cases.
const contractRun = "0a1b2c3d"

// 5.1: with AICR_AGENT_MODE=true `aicr snapshot` collects in-process and writes -o itself;
// without it, it deploys an agent Job named <prefix>-<run-id> that runs `aicr snapshot -o
// <cm uri>` in agent mode. The operator's snapshot Job is AICR in agent mode writing its output
// ConfigMap, so AICR deploys nothing; the simulator's agent Job for a validation run is the
// run-scoped one, in agent mode, writing the run's snapshot ConfigMap of its namespace.
func TestFact5_1_AgentMode(t *testing.T) {
	t.Parallel()
	pod := operatorAgentPod(t)
	c := pod.Containers[0]
	assert.Contains(t, c.Env, corev1.EnvVar{Name: jobs.AgentModeEnv, Value: "true"})
	require.GreaterOrEqual(t, len(c.Args), 3)
	out := c.Args[len(c.Args)-1]
	assert.Equal(t, []string{"snapshot", "-o"}, c.Args[len(c.Args)-3:len(c.Args)-1])
	assert.True(t, strings.HasPrefix(out, "cm://aicr-discovery/"), "the output is a ConfigMap of the Job's namespace: %s", out)

	job := jobexec.AgentJob("aicr-validation", contractRun, aicrImage)
	assert.Equal(t, "aicr-validate-"+contractRun, job.Name)
	agent := job.Spec.Template.Spec.Containers[0]
	assert.Contains(t, agent.Env, corev1.EnvVar{Name: jobs.AgentModeEnv, Value: "true"})
	assert.Equal(t, []string{"snapshot", "-o", "cm://aicr-validation/aicr-snapshot-" + contractRun}, agent.Args)
}

// 5.2: AICR's agent Job runs once (completions and parallelism 1, backoffLimit 0) with a
// deadline and a TTL, label app.kubernetes.io/name=aicr, container aicr with command [aicr] and
// args [snapshot, -o, <output>], restartPolicy Never and /tmp an emptyDir. The simulator's agent
// Job is that Job; the operator's snapshot Job runs once, bounded, never restarted, with /tmp an
// emptyDir, in its container aicr.
func TestFact5_2_AgentJobSpec(t *testing.T) {
	t.Parallel()
	job := jobexec.AgentJob("aicr-validation", contractRun, aicrImage)
	assert.Equal(t, ptr.To[int32](1), job.Spec.Completions)
	assert.Equal(t, ptr.To[int32](1), job.Spec.Parallelism)
	assert.Equal(t, ptr.To[int32](0), job.Spec.BackoffLimit)
	assert.NotNil(t, job.Spec.TTLSecondsAfterFinished)
	assert.NotNil(t, job.Spec.ActiveDeadlineSeconds)
	assert.Equal(t, "aicr", job.Labels["app.kubernetes.io/name"])
	assert.Equal(t, "snapshot-agent", job.Labels["app.kubernetes.io/component"])
	pod := job.Spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	assert.Equal(t, "aicr", pod.Containers[0].Name)
	assert.Equal(t, []string{"aicr"}, pod.Containers[0].Command)
	assert.True(t, tmpIsEmptyDir(pod), "simulator: /tmp is an emptyDir")

	name := "aicr-snapshot-contract"
	ours := startedJob(t, jobs.Config{Namespace: "aicr-discovery", ServiceAccount: jobs.AgentServiceAccount, Agent: true,
		Pod: jobs.PodSettings{ActiveDeadlineSeconds: 600}},
		ports.JobSpec{Name: name, Kind: ports.JobSnapshot, Args: []string{"snapshot", "-o", "cm://aicr-discovery/" + jobs.OutputName(name)}})
	assert.Equal(t, ptr.To[int32](0), ours.Spec.BackoffLimit)
	assert.True(t, ours.Spec.Completions == nil || *ours.Spec.Completions == 1)
	assert.True(t, ours.Spec.Parallelism == nil || *ours.Spec.Parallelism == 1)
	assert.Equal(t, ptr.To[int64](600), ours.Spec.ActiveDeadlineSeconds)
	assert.NotNil(t, ours.Spec.TTLSecondsAfterFinished)
	assert.Equal(t, corev1.RestartPolicyNever, ours.Spec.Template.Spec.RestartPolicy)
	assert.Equal(t, jobs.ContainerName, ours.Spec.Template.Spec.Containers[0].Name)
	assert.True(t, tmpIsEmptyDir(ours.Spec.Template.Spec), "operator: /tmp is an emptyDir")
}

// 5.6: AICR's own agent tolerates every taint and, given no node selector, targets
// nvidia.com/gpu.present=true. The simulator's agent Job does; the operator never leaves the
// choice to AICR: its snapshot Job carries exactly the placement it is given (the accelerated
// node group's selector and tolerations).
func TestFact5_6_AgentScheduling(t *testing.T) {
	t.Parallel()
	pod := jobexec.AgentJob("aicr-validation", contractRun, aicrImage).Spec.Template.Spec
	assert.Equal(t, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, pod.Tolerations)
	assert.Equal(t, map[string]string{"nvidia.com/gpu.present": "true"}, pod.NodeSelector)

	name := "aicr-snapshot-contract"
	placement := &ports.JobPlacement{NodeSelector: map[string]string{"node.kubernetes.io/instance-type": "p5.48xlarge"},
		Tolerations: []ports.JobToleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}}
	ours := startedJob(t, jobs.Config{Namespace: "aicr-discovery", ServiceAccount: jobs.AgentServiceAccount, Agent: true},
		ports.JobSpec{Name: name, Kind: ports.JobSnapshot, Placement: placement,
			Args: []string{"snapshot", "-o", "cm://aicr-discovery/" + jobs.OutputName(name)}}).Spec.Template.Spec
	assert.Equal(t, placement.NodeSelector, ours.NodeSelector)
	assert.Equal(t, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		ours.Tolerations)
}

// tmpIsEmptyDir reports whether the Pod's one container mounts an emptyDir at /tmp.
func tmpIsEmptyDir(pod corev1.PodSpec) bool {
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.MountPath != "/tmp" {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name {
				return v.EmptyDir != nil
			}
		}
	}
	return false
}
