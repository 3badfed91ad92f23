// Package jobs implements ports.JobRunner over batch/v1 Jobs in the Job
// namespace (RES-1, RES-7, RES-8).
//
// Protocol decisions (each must be checked against a real AICR v1 image before
// release):
//
//   - Snapshot. The operator runs AICR's snapshot agent itself (AICR-CLI.md
//     section 5, "run the agent image directly"): a runner with Config.Agent
//     creates the Job in the privileged discovery namespace, as the
//     pre-provisioned ServiceAccount AgentServiceAccount, with
//     AICR_AGENT_MODE=true, NODE_NAME from the downward API, a privileged
//     container, the accelerated group's node selector and tolerations
//     (JobSpec.Placement) and "aicr snapshot -o cm://<discovery ns>/<job>-output".
//     The alternative, "aicr snapshot --namespace <discovery ns>
//     --service-account-name <agent> --image <pinned>" run from the Job
//     namespace, is AICR's documented CLI path, but AICR then creates the agent
//     Job itself: aicr-jobs would need to create, watch and delete Jobs (and
//     read their Pods) in the discovery namespace, and the chart's
//     aicr-operator-job-workloads policy, under which only the operator creates
//     Jobs there, would have to admit AICR's identity too, so a compromised
//     AICR Job could start privileged Pods on GPU nodes. Running the agent
//     keeps "only the operator creates Jobs" and the image pin under admission,
//     gives AICR only the read rights its collectors use (nodes get/list, pods
//     list, ClusterPolicy list) and get/patch of its own output ConfigMap, and
//     moves the wait for the agent into the Job runner the operator already
//     has. What it costs: the operator depends on the agent mode's environment
//     contract (AICR_AGENT_MODE, NODE_NAME) rather than on snapshot's flags, and
//     AICR's own agent placement defaults (--require-gpu, runtime class,
//     --requests/--limits) are not applied; test/jobexec plays the contract and
//     fails a run whose ServiceAccount lacks one of those rights with AICR's
//     exit code 4 (it asks the API server with a SubjectAccessReview).
//
//   - Release. Every Job name and kept result is keyed by the AICR release (the
//     version and the pinned image with its digest, shared.Release), so a new
//     release reuses no snapshot, recipe, assessment or plan of the old one.
//     When the active plan was rendered by another release, the recipe Job
//     gets the active plan's recipe as inputs file inherit.yaml and
//     "--inherit-from" (AICR-CLI.md section 6), read only through the verified
//     plan and the content digest it records (a few kilobytes next to the
//     snapshot and AICRConfig in the inputs ConfigMap). The plan stores the
//     recipe as canonical JSON, which AICR's YAML reader takes; the bundle's own
//     values files are not passed, so fullnameOverride/nameOverride are not
//     inherited (AICR inherits those only from a bundle directory).
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
//
//   - Failures. The container "aicr" runs with terminationMessagePolicy
//     FallbackToLogsOnError, so a failed container's termination message is the
//     tail of its log (AICR logs JSON to stderr with --log-json). Status reads
//     the exit code and the last JSON "command failed" line from the
//     terminated state of the Job's Pod (label batch.kubernetes.io/job-name).
//
//   - Inputs. Input files (criteria/AICRConfig, snapshot, recipe, overrides)
//     are one ConfigMap "<job>-inputs" mounted read-only at InputsDir; a
//     per-run registry credential Secret "<job>-registry" (docker config.json,
//     mounted at RegistryDir with DOCKER_CONFIG pointing to it) is created only
//     when the JobSpec carries credentials. Both are owned by the Job, so
//     garbage collection removes them with it even when the operator is down.
//
//   - Ordering. A Job is created suspended and resumed only once its
//     run-scoped objects exist and are owned by it, so its Pod never starts
//     without its inputs or with a stale output ConfigMap of an earlier Job of
//     the same name that garbage collection has not removed yet.
//
//   - Hygiene. Jobs run as ServiceAccount "aicr-jobs", with the image pinned by
//     digest (New refuses any other image), backoffLimit 0 and
//     ttlSecondsAfterFinished 24 h; Retain raises the TTL to 7 days on the
//     failed Job of a stalled stage, Delete removes a Job with
//     propagationPolicy Foreground once its outputs are recorded, and Keep
//     copies a result into an ownerless ConfigMap in the operator namespace
//     first.
package jobs
