package domain

import (
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// Bounds of AICR Jobs that fail as Jobs do: a pod that never runs, a pod killed from outside
// AICR, a Job past its deadline (RES-4, RES-7).
const (
	// JobPodWaitBound is how long a Job's pod may wait to run (unschedulable, its image not
	// pulled, its container not configured) before the stage stalls JobPodNotRunning.
	JobPodWaitBound = 10 * time.Minute
	// JobDeletionBound is how long deleting a Job may take (its pod stopped, the garbage
	// collector done) before the stage stalls JobUndeletable.
	JobDeletionBound = 10 * time.Minute
	// JobKillAttempts bounds the runs of one stage whose Job is killed from outside AICR or whose
	// output is lost, in a row: the last run stalls JobPodKilled when it was killed, and
	// JobOutputLost when its output was lost.
	JobKillAttempts = 3
	// jobKillBackoff is the wait before the second run of a killed Job; it doubles for every
	// further run.
	jobKillBackoff = 30 * time.Second

	// exitSIGKILL and exitSIGTERM are the exit codes of a container killed by a signal: the
	// OOM killer or the kubelet after the grace period, and an eviction or a drain.
	exitSIGKILL = 137
	exitSIGTERM = 143
)

// ClassifyJobFailure classifies a failed AICR Job (RES-4): a Job its deadline stopped stalls
// AICRTimeout; a pod killed from outside AICR (OOMKilled, evicted, disrupted, exit code 137 or
// 143) is Killed; anything else is AICR's exit (ClassifyAICRExit), a Job whose container never
// reported an exit code counting as canceled.
func ClassifyJobFailure(st ports.JobStatus) AICRExit {
	switch {
	case st.DeadlineExceeded:
		return AICRExit{Category: "Timeout", Stall: stallf(StallAICRTimeout,
			"the job ran past its deadline (activeDeadlineSeconds, chart value jobs.activeDeadlineSeconds): "+
				"raise the deadline if AICR needs longer, or read the retained job's log for what held it up")}
	case st.Killed != "":
		return AICRExit{Category: "Killed", Killed: true}
	}
	code := st.ExitCode
	if code == 0 {
		code = 9 // killed before AICR exited: canceled, which is transient
	}
	return ClassifyAICRExit(code, st.FailureLog)
}

// JobKillBackoff is how long to wait after the attempt-th run of a Job was killed before the
// next run starts: 30s, then doubling.
func JobKillBackoff(attempt int) time.Duration {
	return jobKillBackoff << max(attempt-1, 0)
}

// KillCause names what killed a Job's pod: the runner's observation, else the signal its
// exit code stands for.
func KillCause(st ports.JobStatus) string {
	switch {
	case st.Killed != "":
		return st.Killed
	case st.ExitCode == exitSIGTERM:
		return "SIGTERM (exit code 143)"
	}
	return "SIGKILL (exit code 137)"
}

// JobKilledStall is the JobPodKilled stall of job, whose last of JobKillAttempts runs was
// killed as st records.
func JobKilledStall(job string, st ports.JobStatus) *Stall {
	return stallf(StallJobPodKilled, fmt.Sprintf("%s was killed from outside AICR %d times in a row, last by %s: "+
		"when OOMKilled give the AICR Jobs more memory (chart value jobs.resources.limits.memory), otherwise find what "+
		"evicts or drains their node (kubectl get events -n <job namespace>)",
		job, JobKillAttempts, KillCause(st)))
}

// JobOutputLostStall is the JobOutputLost stall of job, the last of JobKillAttempts succeeded
// runs in a row whose output was lost, cause saying how.
func JobOutputLostStall(job string, cause error) *Stall {
	return stallf(StallJobOutputLost, fmt.Sprintf("the output of %s was lost %d times in a row, last: %v; "+
		"find what deletes or empties the Jobs' output ConfigMaps (<job>-output in the Job namespace: "+
		"a cleanup job, a policy engine, a quota on ConfigMaps)",
		job, JobKillAttempts, cause))
}

// JobWaitStall returns the JobPodNotRunning stall of job once its pod has waited w longer than
// JobPodWaitBound at now, with the pod's own reason and message and what to fix; nil while the
// pod runs or has waited less. w.Since is the kubelet's clock: the bound is judged with
// RemoteElapsed.
func JobWaitStall(job string, w *ports.JobWaiting, now time.Time) *Stall {
	if w == nil || !RemoteElapsed(w.Since, now, JobPodWaitBound) {
		return nil
	}
	msg := fmt.Sprintf("the pod of %s has not run for more than %s: %s", job, JobPodWaitBound, w.Reason)
	if w.Message != "" {
		msg += ": " + w.Message
	}
	return stallf(StallJobPodNotRunning, msg+"; "+waitFix(w.Reason)+"; the job goes on once its pod runs")
}

// JobDeletionStall returns the JobUndeletable stall of job, whose deletion was requested at
// since (the API server's clock, judged with RemoteElapsed), once it has taken longer than
// JobDeletionBound at now; nil before. A finalizer that no
// controller removes holds such a Job: the orphan finalizer of an orphaning delete, or one
// another controller set on the Job or its pod.
func JobDeletionStall(job string, since, now time.Time) *Stall {
	if since.IsZero() || !RemoteElapsed(since, now, JobDeletionBound) {
		return nil
	}
	return stallf(StallJobUndeletable, fmt.Sprintf("%s has been deleted more than %s ago and is still there: "+
		"a finalizer holds it or its pod (kubectl get job,pod -n <job namespace> -l batch.kubernetes.io/job-name=<job> "+
		"-o custom-columns=NAME:.metadata.name,FINALIZERS:.metadata.finalizers); remove the one no controller removes, "+
		"and a fresh job starts once it is gone", job, JobDeletionBound))
}

// waitFix says what to do about a pod waiting for reason.
func waitFix(reason string) string {
	switch reason {
	case "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "InvalidImageName", "RegistryUnavailable":
		return "make the image pullable from the nodes: check the image reference and that the chart value " +
			"jobs.imagePullSecrets names a Secret in the Job namespace that can pull it"
	case "Unschedulable":
		return "make a node able to run it: check the chart values jobs.nodeSelector, jobs.tolerations and " +
			"jobs.resources against the nodes and their free capacity"
	case ports.JobPodNotCreated:
		return "find what refuses its pod in the Job's events (kubectl describe job -n <job namespace> <job>): " +
			"a ResourceQuota or LimitRange against jobs.resources, or an admission policy"
	case "CreateContainerConfigError", "CreateContainerError":
		return "make its container creatable: a Secret or ConfigMap it uses is missing or its settings are refused " +
			"(kubectl describe pod -n <job namespace> -l batch.kubernetes.io/job-name=<job>)"
	}
	return "find why in kubectl describe pod -n <job namespace> -l batch.kubernetes.io/job-name=<job>"
}
