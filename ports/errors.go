package ports

import "errors"

// Sentinel errors returned by port implementations. Adapters wrap their native
// errors with %w so that callers can test them with errors.Is; an error that
// wraps none of these is treated as transient and retried with backoff.
var (
	// ErrTargetNotFound reports that the engine object of a release does not exist.
	ErrTargetNotFound = errors.New("target not found")
	// ErrEngineUnsupported reports that the engine is compiled in but not enabled.
	ErrEngineUnsupported = errors.New("deployment engine not supported")
	// ErrEngineMissing reports that the engine's API (for Argo CD its CRDs) is not installed.
	ErrEngineMissing = errors.New("deployment engine missing")
	// ErrProjectMissing reports that the engine's project or tenant scope does not exist.
	ErrProjectMissing = errors.New("deployment engine project missing")
	// ErrUnauthorized reports that the operator's identity was denied by the engine or registry.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForeignObject reports an object in the way that the operator did not create:
	// its annotations do not carry the operator's runtime UID, so it is never adopted.
	ErrForeignObject = errors.New("foreign object in the way")
	// ErrSuspensionRefused reports that the engine cannot suspend automation of a
	// release right now, for example because a sync operation is running.
	ErrSuspensionRefused = errors.New("engine suspension refused")
	// ErrJobNotFound reports that a job does not exist (never started or already deleted).
	ErrJobNotFound = errors.New("job not found")
	// ErrUntrustedOutput reports a job output the runner cannot prove was written for that
	// job by the job itself; the caller runs the job again instead of using it.
	ErrUntrustedOutput = errors.New("job output not written by its job")
	// ErrOutputLost reports that a succeeded job's output is missing, or holds nothing its job
	// wrote; the caller runs the job again instead of judging it.
	ErrOutputLost = errors.New("job output lost")
	// ErrArtifactNotFound reports that the registry has no artifact for a reference.
	ErrArtifactNotFound = errors.New("artifact not found")
	// ErrCredentialsUnavailable reports that the registry credentials could not be obtained.
	ErrCredentialsUnavailable = errors.New("registry credentials unavailable")
	// ErrCredentialsStale reports that the registry credentials exist but have expired.
	ErrCredentialsStale = errors.New("registry credentials stale")
)
