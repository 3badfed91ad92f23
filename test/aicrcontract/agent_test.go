package aicrcontract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// operatorAgentPod is the Pod template of the snapshot Job the operator's discovery runner
// starts.
func operatorAgentPod(t *testing.T) corev1.PodSpec {
	t.Helper()
	name := "aicr-snapshot-contract"
	return startedJob(t, jobs.Config{Namespace: "aicr-discovery", ServiceAccount: jobs.AgentServiceAccount, Agent: true},
		ports.JobSpec{Name: name, Kind: ports.JobSnapshot, Args: []string{"--log-json", "snapshot", "-o", "cm://aicr-discovery/" + jobs.OutputName(name)}}).
		Spec.Template.Spec
}

// 5.3: AICR's privileged agent shares the host's PID, network and IPC namespaces, runs as root
// (pod and container) in a privileged container with SYS_ADMIN and SYS_CHROOT, and mounts the
// node's /run/systemd (Directory) and /etc/os-release (File) read-only. The operator's agent
// Pod has each, and the simulator finds no gap in it while it finds each in a Pod without them.
func TestFact5_3_PrivilegedAgentShape(t *testing.T) {
	t.Parallel()
	pod := operatorAgentPod(t)
	assert.True(t, pod.HostPID && pod.HostNetwork && pod.HostIPC)
	require.NotNil(t, pod.SecurityContext)
	assert.Equal(t, ptr.To[int64](0), pod.SecurityContext.RunAsUser)
	assert.Equal(t, ptr.To[int64](0), pod.SecurityContext.RunAsGroup)
	assert.Equal(t, ptr.To[int64](0), pod.SecurityContext.FSGroup)
	assert.Equal(t, ptr.To(corev1.FSGroupChangeOnRootMismatch), pod.SecurityContext.FSGroupChangePolicy)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, jobs.ContainerName, c.Name)
	require.NotNil(t, c.SecurityContext)
	assert.Equal(t, ptr.To(true), c.SecurityContext.Privileged)
	assert.Equal(t, ptr.To[int64](0), c.SecurityContext.RunAsUser)
	assert.Equal(t, ptr.To(true), c.SecurityContext.AllowPrivilegeEscalation)
	require.NotNil(t, c.SecurityContext.Capabilities)
	assert.ElementsMatch(t, []corev1.Capability{"SYS_ADMIN", "SYS_CHROOT"}, c.SecurityContext.Capabilities.Add)
	assert.Empty(t, jobexec.AgentShapeGaps(pod))

	assert.Len(t, jobexec.AgentShapeGaps(corev1.PodSpec{Containers: []corev1.Container{{Name: jobs.ContainerName,
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}), 4,
		"host namespaces, root, /etc/os-release and /run/systemd")
}

// 5.5: the agent's environment: AICR_AGENT_MODE=true and NODE_NAME from spec.nodeName.
func TestFact5_5_AgentEnvironment(t *testing.T) {
	t.Parallel()
	env := operatorAgentPod(t).Containers[0].Env
	assert.Contains(t, env, corev1.EnvVar{Name: "AICR_AGENT_MODE", Value: "true"})
	assert.Contains(t, env, corev1.EnvVar{Name: "NODE_NAME",
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}})
}
