package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

// Reasons of the events a stage reports (STYLE R24); a stall is reported with the domain's
// stall reason verbatim.
const (
	// EventStageStarted: the stage's AICR Job was created.
	EventStageStarted = "ResolveStageStarted"
	// EventStageSucceeded: the stage's result is recorded.
	EventStageSucceeded = "ResolveStageSucceeded"
	// EventKeptResultIgnored: what stands at a kept result's name is not the runner's sealed
	// copy, so the stage's Job runs again.
	EventKeptResultIgnored = "KeptResultIgnored"
)

// Stage is one AICR Job of a resolution (RES-1): its name is its identity (a hash of every
// input that decides its result), so a stage whose inputs did not change reuses its Job or
// its kept result.
type Stage struct {
	Kind   ports.JobKind
	Name   string
	Args   []string
	Inputs map[string][]byte
	// KeepRole, when set, keeps the result (ports.KeptResult of that role) and deletes the Job
	// at once; otherwise the caller deletes the Job once it recorded the result.
	KeepRole string
	// Credentials is the docker config.json of the Job's run-scoped registry Secret (RES-8).
	Credentials []byte
	// VersionInArtifact says the Job writes no output ConfigMap to carry AICR's version (a
	// bundle pushed to a registry): the caller checks the version the artifact records.
	VersionInArtifact bool
	// Placement pins the Job to nodes (nil: anywhere).
	Placement *ports.JobPlacement
}

// StageEvent is something a stage run did, for the caller to record as an Event.
type StageEvent struct {
	// Warning marks an event of type Warning (else Normal).
	Warning bool
	Reason  string
	Message string
}

// StageRun is what one run of a stage found: its result files, or why there are none yet.
// Exactly one of Files, Waiting, Stall and Transient is set.
type StageRun struct {
	// Files are the stage's result.
	Files fs.FS
	// Waiting says the stage's Job is running.
	Waiting string
	// Stall stops the resolution until an input changes.
	Stall *domain.Stall
	// Transient is a failure worth retrying with backoff (RES-6).
	Transient error
	// Events happened during the run, in order.
	Events []StageEvent
}

// StageRunner runs the stages of a resolution over the JobRunner port: a kept result first,
// else the stage's Job, started once, its output used only when it is the Job's own and of the
// pinned AICR version, kept when the stage keeps it; a failed Job is retried when AICR's exit
// is transient and kept for inspection when it is not (RES-1, RES-4, RES-5, RES-7).
type StageRunner struct {
	Jobs ports.JobRunner
	// Image is the pinned AICR image every Job runs.
	Image string
	// AICRVersion is the AICR version every Job must report (RES-5).
	AICRVersion string
}

// Run runs st for the runtime runtimeUID as far as it gets in one call.
func (s StageRunner) Run(ctx context.Context, runtimeUID string, st Stage) StageRun {
	var run StageRun
	if st.KeepRole != "" {
		files, err := s.Jobs.Kept(ctx, st.kept(runtimeUID))
		switch {
		case errors.Is(err, ports.ErrUntrustedOutput):
			run.event(true, EventKeptResultIgnored, "kept %s result ignored, the job runs again: %s", st.Kind, err)
		case err != nil:
			return run.transient(err)
		case files != nil:
			run.Files = files
			return run
		}
	}
	ref := ports.JobRef{Name: st.Name}
	js, err := s.Jobs.Status(ctx, ref)
	switch {
	case errors.Is(err, ports.ErrJobNotFound):
		spec := ports.JobSpec{Name: st.Name, Kind: st.Kind, Image: s.Image, Args: st.Args, Inputs: st.Inputs,
			Credentials: st.Credentials, Owner: ports.ReleaseOwner{RuntimeUID: runtimeUID}, Placement: st.Placement}
		if _, err = s.Jobs.Start(ctx, spec); err != nil {
			return run.transient(err)
		}
		run.event(false, EventStageStarted, "aicr %s job %s started", st.Kind, st.Name)
		return run.waiting(st)
	case err != nil:
		return run.transient(err)
	}
	switch js.State {
	case ports.JobSucceeded:
		return s.finish(ctx, runtimeUID, st, js, run)
	case ports.JobFailed:
		return s.fail(ctx, st, js, run)
	case ports.JobRunning:
	}
	return run.waiting(st)
}

// finish uses a succeeded Job's output: only the Job's own (else the Job runs again), only of
// the pinned AICR version (else AICRVersionMismatch; the caller checks a stage whose version is
// in its artifact), kept and the Job deleted when the stage
// keeps its result; something in the way of the kept result stalls ForeignObject.
func (s StageRunner) finish(ctx context.Context, runtimeUID string, st Stage, js ports.JobStatus, run StageRun) StageRun {
	ref := ports.JobRef{Name: st.Name}
	files, err := s.Jobs.Output(ctx, ref)
	if errors.Is(err, ports.ErrUntrustedOutput) {
		return s.again(ctx, st, err, run)
	}
	if stall := domain.CheckAICRVersion(s.AICRVersion, js.AICRVersion); stall != nil && !st.VersionInArtifact {
		run.Stall = &domain.Stall{Reason: stall.Reason, Message: fmt.Sprintf("aicr %s job %s: %s", st.Kind, st.Name, stall.Message)}
		return run
	}
	if err != nil {
		return run.transient(err)
	}
	if st.KeepRole != "" {
		err = s.Jobs.Keep(ctx, ref, st.kept(runtimeUID))
		if errors.Is(err, ports.ErrForeignObject) {
			run.Stall = &domain.Stall{Reason: domain.StallForeignObject, Message: err.Error()}
			return run
		}
		if err != nil {
			return run.transient(err)
		}
		if err = s.Jobs.Delete(ctx, ref); err != nil {
			return run.transient(err)
		}
	}
	run.event(false, EventStageSucceeded, "aicr %s job %s succeeded", st.Kind, st.Name)
	run.Files = files
	return run
}

// fail classifies a failed Job (RES-4): a transient exit deletes the Job so the retry starts a
// fresh one; a terminal one keeps it for inspection and stalls with AICR's category.
func (s StageRunner) fail(ctx context.Context, st Stage, js ports.JobStatus, run StageRun) StageRun {
	code := js.ExitCode
	if code == 0 {
		code = 9 // killed before AICR exited: treated as canceled, which is transient
	}
	exit := domain.ClassifyAICRExit(code, js.FailureLog)
	ref := ports.JobRef{Name: st.Name}
	if exit.Transient {
		if err := s.Jobs.Delete(ctx, ref); err != nil {
			return run.transient(err)
		}
		return run.transient(fmt.Errorf("aicr %s job %s: %s (exit code %d)", st.Kind, st.Name, exit.Category, js.ExitCode))
	}
	if err := s.Jobs.Retain(ctx, ref); err != nil {
		return run.transient(err)
	}
	run.Stall = &domain.Stall{Reason: exit.Stall.Reason, Message: fmt.Sprintf("aicr %s job %s failed: %s", st.Kind, st.Name, exit.Stall.Message)}
	return run
}

// again deletes a Job whose output is not its own, so the stage runs again with a fresh Job;
// nothing of the output is used.
func (s StageRunner) again(ctx context.Context, st Stage, cause error, run StageRun) StageRun {
	if err := s.Jobs.Delete(ctx, ports.JobRef{Name: st.Name}); err != nil {
		return run.transient(err)
	}
	return run.transient(fmt.Errorf("aicr %s job %s runs again, its output is not its own: %w", st.Kind, st.Name, cause))
}

func (st Stage) kept(runtimeUID string) ports.KeptResult {
	return ports.KeptResult{Name: st.Name, Role: st.KeepRole, RuntimeUID: runtimeUID}
}

func (r *StageRun) event(warning bool, reason, format string, args ...any) {
	r.Events = append(r.Events, StageEvent{Warning: warning, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (r StageRun) transient(err error) StageRun {
	r.Transient = err
	return r
}

func (r StageRun) waiting(st Stage) StageRun {
	r.Waiting = fmt.Sprintf("aicr %s job %s running", st.Kind, st.Name)
	return r
}
