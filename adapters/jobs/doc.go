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
//     upgrade-check and validate. AICR v1 stores the artifact under
//     "snapshot.<ext>" whatever the command ("snapshot.yaml" for YAML, the
//     default of snapshot and recipe; "snapshot.json" for the JSON upgrade-check
//     report and validate's CTRF report; "snapshot.txt" for a table) next to
//     "format" and "timestamp"; Output hands the one artifact on as
//     ports.JobArtifactFile (more than one is untrusted). AICR labels these
//     ConfigMaps app.kubernetes.io/version=unknown, so the AICR version Status
//     reports is the artifact's own (metadata.version of a snapshot or a
//     RecipeResult, results.tool.version of a CTRF report); the label counts
//     only when it names a version, and must then agree. The upgrade-check
//     report records no version: its Job ran the pinned image, which the chart's
//     admission policy makes the only image there.
//
//   - Bundle transport. A bundle is a directory, which AICR writes to a
//     directory or, with "-o oci://<registry>/<repository>[:<tag>]", pushes as
//     one gzip tar layer of artifact type application/vnd.nvidia.aicr.artifact
//     (AICR-CLI.md section 7); it has no cm:// form, and a ConfigMap is capped
//     near 1 MiB while a bundle may be far larger. So the bundle Job runs
//     "aicr bundle ... -o oci://<registry>/bundles/cluster:<job name>
//     --image-refs /dev/termination-log" (plus --plain-http for the in-cluster
//     registry), authenticated by the docker config of its run-scoped Secret
//     "<job>-registry" (RES-8), which carries only the operator's current push
//     credential for the registry host (ports.Registry.BundleTarget).
//     How the digest comes back: AICR writes the pushed digest
//     ("sha256:<64 hex>" and a newline) to its --image-refs file, and that
//     file is the container's termination log, which the kubelet copies into
//     the terminated state of the container; Output returns it as
//     ports.JobImageRefsFile, read only from a Pod the Job controls whose aicr
//     container exited 0 (FallbackToLogsOnError falls back to the log only on
//     a failure). This was chosen over resolving a per-run tag afterwards: a
//     tag can be moved by anyone holding a push credential between the push
//     and the read, while the termination message is written only by the
//     Job's own container and recorded by the kubelet, like the exit code the
//     stage already trusts. The digest is still untrusted: the resolver pulls
//     <registry>/bundles/cluster@<digest> through the Registry port, which
//     verifies the manifest against the digest, its artifact type, exactly one
//     gzip tar layer within the size bound and the layer against its digest,
//     and unpacks it with Untar (no path escapes, no links, bounded size) into
//     the fs.FS adapters/aicr.ReadBundle reads unchanged; the plan records that
//     digest as its bundle reference, what `kubectl aicr reproduce` hands to
//     `oras pull`. Such a Job writes no output ConfigMap, so its AICR version
//     is the one bundle-info.yaml records (RES-5). Only a resolver without a
//     Registry (the test suites; the operator refuses to start without one)
//     still has the bundle stored as a gzip tar archive under the binaryData
//     key "bundle.tar.gz" of the output ConfigMap, which Output unpacks the
//     same way. To check against a real AICR v1 image: that --image-refs may
//     name /dev/termination-log (AICR must write the file in place, not
//     rename a temporary file next to it), and that the layer carries an
//     org.opencontainers.image.title (oras pull skips an untitled layer; the
//     AICR source read for this titles none, test/aicroci titles it ".").
//
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
//
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
//
//   - Pod settings. Every Job carries the installation's activeDeadlineSeconds,
//     container resources, nodeSelector, tolerations and imagePullSecrets
//     (Config.Pod, chart values jobs.*).
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
//     failed Job of a stalled stage (and of a failed deployment validation),
//     Delete removes a Job with propagationPolicy Foreground once its outputs
//     are recorded (a validation Job once the rollout recorded its report as
//     evidence), and Keep copies a result into an ownerless ConfigMap in the
//     operator namespace first.
package jobs
