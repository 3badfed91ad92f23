package jobexec

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// AgentOutcome is how the snapshot agent Job of a validate run ends when it does not write its
// snapshot.
type AgentOutcome string

const (
	// AgentFails is an agent whose container exits 1, which fails its Job (backoffLimit 0).
	AgentFails AgentOutcome = "Fails"
	// AgentHangs is an agent whose Pod no node takes, so its Job never finishes and validate's wait
	// for it times out.
	AgentHangs AgentOutcome = "Hangs"
)

// agentError ends a validate run whose snapshot agent did not complete with result.
type agentError struct{ result Result }

func (e *agentError) Error() string { return e.result.Log }

// AgentWaitResult is how `aicr validate` ends after waiting for its snapshot agent Job job, as
// AICR v1 does: nil when the Job completed; TIMEOUT, exit 5, when the wait timed out with the
// Job still unfinished; INTERNAL, exit 8, when the Job failed.
func AgentWaitResult(job *batchv1.Job, version string) *Result {
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue && c.Type == batchv1.JobComplete {
			return nil
		}
		if c.Status == corev1.ConditionTrue && c.Type == batchv1.JobFailed {
			return &Result{ExitCode: 8, Log: commandFailed(version, 8,
				"[INTERNAL] snapshot agent Job "+job.Name+" failed: "+c.Reason)}
		}
	}
	return &Result{ExitCode: 5, Log: commandFailed(version, 5,
		"[TIMEOUT] timed out waiting for snapshot agent Job "+job.Name+" to complete")}
}
