// Package jobs implements ports.JobRunner over batch/v1 Jobs in the Job
// namespace (RES-1, RES-7, RES-8).
//
// Protocol decisions (each must be checked against a real AICR v1 image before
// release):
//
//   - Output. Every Job gets an output ConfigMap "<job>-output" in the Job
//     namespace, created empty by the runner and owned by the Job. AICR writes it
//     with its native "-o cm://<namespace>/<job>-output" for snapshot, recipe,
//     upgrade-check and validate: the artifact is under the data key
//     "snapshot.yaml" (AICR uses that key even for a recipe, AICR-CLI.md section
//     3) and the ConfigMap carries the label app.kubernetes.io/version=<AICR
//     version>, which Status reports as JobStatus.AICRVersion. A bundle is a
//     directory, so the bundle Job stores it as a gzip tar archive under the
//     binaryData key "bundle.tar.gz" of the same ConfigMap; Output unpacks it
//     into an in-memory fs.FS (no path escapes, no links, bounded size) that
//     adapters/aicr.ReadBundle reads unchanged. Whether AICR v1 packs the
//     bundle itself or the Job needs a packaging step is the open point of this
//     protocol.
//   - Failures. The container "aicr" runs with terminationMessagePolicy
//     FallbackToLogsOnError, so a failed container's termination message is the
//     tail of its log (AICR logs JSON to stderr with --log-json). Status reads
//     the exit code and the last JSON "command failed" line from the
//     terminated state of the Job's latest Pod (label batch.kubernetes.io/job-name),
//     and what killed the Pod from outside AICR: the container's OOMKilled
//     reason, the Pod's Evicted reason or its DisruptionTarget condition
//     (JobStatus.Killed; exit codes 137 and 143 say the same to the domain). A
//     Job failed with reason DeadlineExceeded (activeDeadlineSeconds) is
//     JobStatus.DeadlineExceeded. The callers run a killed Job again under the
//     next run's name (<job>-2, <job>-3, after a backoff from JobStatus.FinishedAt
//     on their Clock), so the run count is the name and nothing is recorded twice.
//   - Waiting. For a running Job, Status reports why its Pod does not run, in
//     the Pod's words (JobStatus.Waiting): PodScheduled=False with reason
//     Unschedulable since that condition's transition, or the aicr container's
//     waiting reason (ImagePullBackOff, ErrImagePull, CreateContainerConfigError,
//     ...) since the ContainersReady condition's transition, or, for a started
//     Job without a Pod (a quota or an admission policy refused it),
//     ports.JobPodNotCreated since the Job's startTime. The callers measure
//     the wait on their Clock and stall JobPodNotRunning past
//     domain.JobPodWaitBound; the Job is left alone, so it goes on once the Pod
//     can run.
//   - Pod settings. Every Job carries the installation's activeDeadlineSeconds,
//     container resources, nodeSelector, tolerations and imagePullSecrets
//     (Config.Pod, chart values jobs.*).
//   - Inputs. Input files (criteria/AICRConfig, snapshot, recipe, overrides)
//     are one ConfigMap "<job>-inputs" mounted read-only at InputsDir; a
//     per-run registry credential Secret "<job>-registry" (docker config.json,
//     mounted at RegistryDir with DOCKER_CONFIG pointing to it) is created only
//     when the JobSpec carries credentials. Both are owned by the Job, so
//     garbage collection removes them with it even when the operator is down.
//   - Ordering. A Job is created suspended and resumed only once its
//     run-scoped objects exist and are owned by it, so its Pod never starts
//     without its inputs or with a stale output ConfigMap of an earlier Job of
//     the same name that garbage collection has not removed yet.
//   - Hygiene. Jobs run as ServiceAccount "aicr-jobs", with the image pinned by
//     digest (New refuses any other image), backoffLimit 0 and
//     ttlSecondsAfterFinished 24 h; Retain raises the TTL to 7 days on the
//     failed Job of a stalled stage (and of a failed deployment validation),
//     Delete removes a Job with propagationPolicy Foreground once its outputs
//     are recorded (a validation Job once the rollout recorded its report as
//     evidence), and Keep copies a result into an ownerless ConfigMap in the
//     operator namespace first.
package jobs
