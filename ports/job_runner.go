package ports

import (
	"context"
	"io/fs"
	"time"
)

// JobKind names the AICR command a job runs.
type JobKind string

const (
	// JobSnapshot runs `aicr snapshot`.
	JobSnapshot JobKind = "snapshot"
	// JobRecipe runs `aicr recipe`.
	JobRecipe JobKind = "recipe"
	// JobBundle runs `aicr bundle --deployer helm`.
	JobBundle JobKind = "bundle"
	// JobUpgradeCheck runs `aicr upgrade-check`.
	JobUpgradeCheck JobKind = "upgrade-check"
	// JobValidate runs `aicr validate --phase deployment`.
	JobValidate JobKind = "validate"
)

// Where a job sees its files (the protocol between a JobRunner and AICR's arguments).
const (
	// JobInputsDir is the directory a job reads its inputs from: JobSpec.Inputs[key] is the
	// file JobInputsDir + "/" + key inside the job.
	JobInputsDir = "/aicr/inputs"
	// JobArtifactFile is the file of Output holding the artifact a job wrote to its
	// OutputRef (snapshot, recipe or report, YAML or JSON), whatever name AICR stored it under.
	JobArtifactFile = "artifact"
	// JobUIDArg, in an argument of a JobSpec, is replaced by the job's own UID (JobStatus.UID)
	// when the job runs: a name that only this run of the job can have, such as the tag a
	// bundle job pushes to.
	JobUIDArg = "$(AICR_JOB_UID)"
	// JobImageRefsPath is the file a job pushing to a registry hands AICR as --image-refs:
	// AICR writes the pushed digest there ("sha256:<64 hex>\n", docs/design/aicr-cli.md section 7)
	// through a temporary file in the same directory and a rename, so the directory is the
	// job's own and writable.
	JobImageRefsPath = "/aicr/image-refs/digest"
	// JobImageRefsFile is the file of Output holding what the job wrote to JobImageRefsPath.
	JobImageRefsFile = "image-refs"
)

// JobSpec describes one run of the pinned AICR image. Name is the job's
// identity: starting a job whose name exists returns the existing job.
type JobSpec struct {
	Name   string
	Kind   JobKind
	Image  string
	Args   []string
	Inputs map[string][]byte
	// Credentials is a docker config.json for the registry the job pulls from
	// or pushes to (RES-8). When set, the runner stores it in a per-run Secret
	// owned by the job; nil means the job needs no registry credentials.
	Credentials []byte
	// Owner records the runtime UID and plan or rollout the job works for.
	Owner ReleaseOwner
	// Placement pins the job to nodes (nil: anywhere) unless the installation names nodes of
	// its own for every job. The snapshot agent runs on a node of the accelerated group, so it
	// reads that node (docs/design/aicr-cli.md section 5); every other job on the system group,
	// away from the workloads of the accelerated nodes.
	Placement *JobPlacement
}

// JobPlacement is where a job runs: a node selector and the tolerations it needs.
type JobPlacement struct {
	NodeSelector map[string]string
	Tolerations  []JobToleration
}

// JobToleration is one toleration of a job (a Kubernetes toleration's fields).
type JobToleration struct {
	Key, Operator, Value, Effect string
}

// JobRef identifies a started job.
type JobRef struct {
	Name string
}

// JobState is the lifecycle state of a job.
type JobState string

const (
	// JobRunning means the job has not finished.
	JobRunning JobState = "Running"
	// JobSucceeded means the job exited 0 and its output is readable.
	JobSucceeded JobState = "Succeeded"
	// JobFailed means the job exited non-zero or was killed.
	JobFailed JobState = "Failed"
)

// JobStatus is the observation of a job.
type JobStatus struct {
	State JobState
	// UID is the job's unique ID, assigned when it was created: a job deleted and started
	// again under the same name has another (JobUIDArg).
	UID string
	// ExitCode is the container's exit code once finished (docs/design/aicr-cli.md section 4).
	ExitCode int
	// FailureLog is AICR's last JSON "command failed" log line, if any.
	FailureLog string
	// AICRVersion is the version the AICR binary recorded in its output: the artifact's own
	// version field (AICR labels its output ConfigMaps with version "unknown"). Empty when the
	// artifact records none (the upgrade-check report): the job ran the pinned image, the only
	// one the platform's admission lets a job run.
	AICRVersion string
	// Message is a human-readable detail.
	Message string
	// FinishedAt is when a finished job ended (zero while it runs, or when unknown).
	FinishedAt time.Time
	// Killed names what killed a failed job's pod from outside AICR, when something did:
	// OOMKilled, Evicted or DisruptionTarget (preempted, drained, deleted by a controller).
	// A killed job is worth running again (RES-4); exit codes 137 and 143 say the same.
	Killed string
	// DeadlineExceeded reports a failed job its deadline (activeDeadlineSeconds) stopped.
	DeadlineExceeded bool
	// Waiting describes the pod of a running job that does not run: not scheduled, or its
	// container waiting to start. Nil when the pod runs or does not exist yet.
	Waiting *JobWaiting
	// DeletingSince is when the job's deletion was requested (its deletionTimestamp); zero
	// unless it is being deleted. A job being deleted runs no more: a caller waits for it to
	// go, and a finished one keeps the result it had.
	DeletingSince time.Time
}

// JobPodNotCreated is the JobWaiting reason of a started job that has no pod: the platform
// refused to create it (a quota, a limit range or an admission policy).
const JobPodNotCreated = "PodNotCreated"

// JobWaiting is why a running job's pod does not run, in the pod's own words.
type JobWaiting struct {
	// Reason is the pod's machine-readable reason: Unschedulable, or the container's waiting
	// reason (ImagePullBackOff, ErrImagePull, CreateContainerConfigError, ...), or
	// JobPodNotCreated.
	Reason string
	// Message is the pod's own message for Reason.
	Message string
	// Since is when the pod started waiting, as the pod's conditions record it.
	Since time.Time
}

// JobRunner runs AICR commands as jobs.
//
// Contract: Start is idempotent by JobSpec.Name and returns without waiting
// for the job; Status and Output never mutate and return ErrJobNotFound when
// the job does not exist, Status also when its Start did not complete (the caller
// starts it again, which completes it); Output returns the files the job wrote (for a bundle
// job writing to OutputRef the bundle directory, readable by the same bundle reader
// as a directory on disk; for a job given --image-refs JobImageRefsPath the file
// JobImageRefsFile, read from the job's own finished container; for any other
// job JobArtifactFile) and an error wrapping
// ErrJobNotFound until the job succeeded, an error wrapping ErrOutputLost when the succeeded
// job's output is missing or holds nothing it wrote, and an error wrapping ErrUntrustedOutput
// when what it finds at the job's output was not written for that job by the job itself (then
// JobStatus.AICRVersion is empty too). A job reads its inputs under
// JobInputsDir and writes its output to OutputRef(name), which AICR takes as
// its -o argument; OutputRef is pure.
//
// Lifecycle (RES-7): Delete removes a job with everything it owns; Retain keeps a
// failed job for inspection; both treat a missing job as done. Keep copies a
// succeeded job's output into a kept result that outlives the job, sealed so that
// Kept returns it only as it was kept: Kept returns nil when there is no kept
// result, and an error wrapping ErrUntrustedOutput when what is there was not kept
// by the runner or changed since (the caller runs the job again). Keep returns an
// error wrapping ErrForeignObject when something it did not write is in the way;
// it never takes it over. Any other error is transient.
type JobRunner interface {
	// Start creates the job if it does not exist.
	Start(ctx context.Context, spec JobSpec) (JobRef, error)
	// Status reports the job's state.
	Status(ctx context.Context, ref JobRef) (JobStatus, error)
	// Output returns the job's output files.
	Output(ctx context.Context, ref JobRef) (fs.FS, error)
	// OutputRef returns the destination the job named job writes its output to (AICR's -o).
	OutputRef(job string) string
	// Delete deletes the job and everything it owns.
	Delete(ctx context.Context, ref JobRef) error
	// Retain keeps the failed job for inspection (RES-7: seven days).
	Retain(ctx context.Context, ref JobRef) error
	// Keep copies the succeeded job's output into the kept result r.
	Keep(ctx context.Context, ref JobRef, r KeptResult) error
	// Kept returns the files of the kept result r (nil: none kept).
	Kept(ctx context.Context, r KeptResult) (fs.FS, error)
}

// KeptResult names a job's result kept after the job is gone (RES-7): a snapshot or a
// recipe the next resolution reuses.
type KeptResult struct {
	// Name identifies the kept result (the name of the job that produced it).
	Name string
	// Role says what it holds (snapshot, recipe).
	Role string
	// RuntimeUID is the runtime it was produced for.
	RuntimeUID string
}
