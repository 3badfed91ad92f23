package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestClassifyJobFailure: a Job its deadline stopped stalls AICRTimeout whatever its exit code;
// a pod killed from outside AICR is Killed (not AICRInternal); anything else is AICR's exit
// (RES-4).
func TestClassifyJobFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		st        ports.JobStatus
		killed    bool
		transient bool
		stall     domain.StallReason
		cause     string
	}{
		{name: "exit 137 (SIGKILL)", st: ports.JobStatus{ExitCode: 137}, killed: true, cause: "SIGKILL (exit code 137)"},
		{name: "exit 143 (SIGTERM)", st: ports.JobStatus{ExitCode: 143}, killed: true, cause: "SIGTERM (exit code 143)"},
		{name: "OOMKilled", st: ports.JobStatus{ExitCode: 137, Killed: "OOMKilled"}, killed: true, cause: "OOMKilled"},
		{name: "evicted before AICR exited", st: ports.JobStatus{Killed: "Evicted"}, killed: true, cause: "Evicted"},
		{name: "disrupted (drained node)", st: ports.JobStatus{ExitCode: 143, Killed: "DisruptionTarget (EvictionByEvictionAPI)"},
			killed: true, cause: "DisruptionTarget (EvictionByEvictionAPI)"},
		{name: "deadline exceeded", st: ports.JobStatus{ExitCode: 143, DeadlineExceeded: true}, stall: domain.StallAICRTimeout},
		{name: "no exit code is canceled", st: ports.JobStatus{}, transient: true},
		{name: "AICR unavailable", st: ports.JobStatus{ExitCode: 6}, transient: true},
		{name: "AICR internal", st: ports.JobStatus{ExitCode: 8}, stall: domain.StallAICRInternal},
		{name: "an unknown code", st: ports.JobStatus{ExitCode: 1}, stall: domain.StallAICRInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exit := domain.ClassifyJobFailure(tc.st)
			assert.Equal(t, tc.killed, exit.Killed)
			assert.Equal(t, tc.transient, exit.Transient)
			if tc.stall == "" {
				assert.Nil(t, exit.Stall)
			} else {
				require.NotNil(t, exit.Stall)
				assert.Equal(t, tc.stall, exit.Stall.Reason())
			}
			if tc.killed {
				assert.Equal(t, tc.cause, domain.KillCause(tc.st))
			}
		})
	}
}

// TestJobKillBackoff: 30s before the second run, doubling for each further run.
func TestJobKillBackoff(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute},
		[]time.Duration{domain.JobKillBackoff(1), domain.JobKillBackoff(2), domain.JobKillBackoff(3)})
}

// TestJobWaitStall: each waiting reason stalls JobPodNotRunning once the pod waited
// JobPodWaitBound, with the pod's own reason and message and the chart value to fix; a shorter
// wait or a pod that does not wait is no stall.
func TestJobWaitStall(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		reason, message, fix string
	}{
		{"ImagePullBackOff", `Back-off pulling image "ghcr.io/nvidia/aicr"`, "jobs.imagePullSecrets"},
		{"ErrImagePull", "pull access denied", "jobs.imagePullSecrets"},
		{"Unschedulable", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector", "jobs.nodeSelector"},
		{"CreateContainerConfigError", `secret "x" not found`, "a Secret or ConfigMap it uses is missing"},
		{"ContainerCreating", "", "kubectl describe pod"},
		{ports.JobPodNotCreated, "the Job controller started the Job but created no pod", "kubectl describe job"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			w := &ports.JobWaiting{Reason: tc.reason, Message: tc.message, Since: since}
			assert.Nil(t, domain.JobWaitStall("aicr snapshot job s", w, since.Add(domain.JobPodWaitBound+domain.ClockSkewTolerance-time.Second)))
			s := domain.JobWaitStall("aicr snapshot job s", w, since.Add(domain.JobPodWaitBound+domain.ClockSkewTolerance))
			require.NotNil(t, s)
			assert.Equal(t, domain.StallJobPodNotRunning, s.Reason())
			for _, part := range []string{"aicr snapshot job s", tc.reason, tc.message, tc.fix} {
				assert.Contains(t, s.Message(), part)
			}
		})
	}
	assert.Nil(t, domain.JobWaitStall("aicr snapshot job s", nil, since.Add(time.Hour)))
}

// TestJobDeletionStall: a Job's deletion stalls JobUndeletable only once it has taken the
// bound, with the Job and how to find the finalizer that holds it.
func TestJobDeletionStall(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	assert.Nil(t, domain.JobDeletionStall("aicr recipe job r", since, since.Add(domain.JobDeletionBound+domain.ClockSkewTolerance-time.Second)))
	assert.Nil(t, domain.JobDeletionStall("aicr recipe job r", time.Time{}, since), "a Job not being deleted")
	s := domain.JobDeletionStall("aicr recipe job r", since, since.Add(domain.JobDeletionBound+domain.ClockSkewTolerance))
	require.NotNil(t, s)
	assert.Equal(t, domain.StallJobUndeletable, s.Reason())
	for _, part := range []string{"aicr recipe job r", "finalizer", "batch.kubernetes.io/job-name"} {
		assert.Contains(t, s.Message(), part)
	}
}
