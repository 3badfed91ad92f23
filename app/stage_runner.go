package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
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
	// Placement pins the Job to nodes (nil: anywhere).
	Placement *ports.JobPlacement
}

// StageEvent is something a stage run did, for the caller to record as an Event.
type StageEvent struct {
	// Warning marks an event of type Warning (else Normal).
	Warning bool
	Reason  domain.EventReason
	Message string
}

// StageRun is what one run of a stage found: its result files, or why there are none yet.
// Exactly one of Files, Waiting, Stall and Transient is set.
type StageRun struct {
	// Files are the stage's result.
	Files fs.FS
	// JobUID is the UID of the Job whose output Files are (empty for a kept result).
	JobUID string
	// Waiting says the stage's Job is running.
	Waiting string
	// Stall stops the resolution until an input changes.
	Stall *domain.Stall
	// Transient is a failure worth retrying with backoff (RES-6).
	Transient error
	// Events happened during the run, in order.
	Events []StageEvent
}

// StageRunner runs the stages of a resolution over the JobRunner port: a kept result first
// (deleting the Job whose output it is when a stopped operator left it), else the stage's Job,
// started once, its output used only when it is the Job's own and of the pinned AICR version,
// kept when the stage keeps it; a failed Job is retried when AICR's exit is transient and kept
// for inspection when it is not (RES-1, RES-4, RES-5, RES-7). A Job killed from outside AICR
// runs again under the next run's name (<name>-2, <name>-3) after a backoff, and a succeeded
// Job whose output is lost at once, at most domain.JobKillAttempts runs in all; a pod that does
// not run within domain.JobPodWaitBound stalls the stage JobPodNotRunning until it runs, and a
// Job whose deletion takes longer than domain.JobDeletionBound stalls it JobUndeletable.
type StageRunner struct {
	Jobs ports.JobRunner
	// Image is the pinned AICR image every Job runs.
	Image string
	// AICRVersion is the AICR version every Job must report (RES-5).
	AICRVersion string
	// Clock measures how long a pod waits and the backoff between runs of a killed Job.
	Clock ports.Clock
}

// newResolution says how a stalled stage runs again with new Jobs.
const newResolution = "a changed chart value takes effect with a new resolution " +
	"(a new operator.aicr.run/resolve-requested-at value on the ClusterRuntime)"

// Run runs st for the runtime runtimeUID as far as it gets in one call.
func (s StageRunner) Run(ctx context.Context, runtimeUID string, st Stage) StageRun {
	var run StageRun
	if st.KeepRole != "" {
		files, err := s.Jobs.Kept(ctx, st.kept(runtimeUID))
		switch {
		case errors.Is(err, ports.ErrUntrustedOutput):
			run.event(true, domain.EventKeptResultIgnored, "kept %s result ignored, the job runs again: %s", st.Kind, err)
		case err != nil:
			return run.transient(err)
		case files != nil:
			if err = s.deleteKeptRun(ctx, st); err != nil {
				return run.transient(err)
			}
			run.Files = files
			return run
		}
	}
	var killed *ports.JobStatus
	var lost error
	for attempt := 1; ; attempt++ {
		ref := ports.JobRef{Name: st.job(attempt)}
		js, err := s.Jobs.Status(ctx, ref)
		switch {
		case errors.Is(err, ports.ErrJobNotFound):
			return s.start(ctx, runtimeUID, st, attempt, killed, lost, run)
		case err != nil:
			return run.transient(err)
		}
		killed, lost = nil, nil
		switch js.State {
		case ports.JobSucceeded:
			finished, lostBy := s.finish(ctx, runtimeUID, st, ref, js, run)
			switch {
			case lostBy == nil:
				return finished
			case attempt < domain.JobKillAttempts:
				lost = lostBy
				continue
			}
			return s.outputLost(ctx, st, attempt, lostBy, run)
		case ports.JobFailed:
			exit := domain.ClassifyJobFailure(js)
			if exit.Killed && attempt < domain.JobKillAttempts {
				killed = &js
				continue
			}
			if exit.Transient && !js.DeletingSince.IsZero() {
				return s.deleting(st, ref, js, run)
			}
			return s.fail(ctx, st, attempt, js, exit, run)
		case ports.JobRunning:
			if !js.DeletingSince.IsZero() {
				return s.deleting(st, ref, js, run)
			}
		}
		return s.running(st, ref, js, run)
	}
}

// running waits for a running Job, or stalls JobPodNotRunning once its pod has waited to run
// longer than domain.JobPodWaitBound.
func (s StageRunner) running(st Stage, ref ports.JobRef, js ports.JobStatus, run StageRun) StageRun {
	if js.Waiting != nil {
		if stall := domain.JobWaitStall(st.describe(ref.Name), js.Waiting, s.Clock.Now()); stall != nil {
			run.Stall = stall.Reworded("", "; "+newResolution)
			return run
		}
	}
	return run.waiting(st, ref.Name)
}

// deleting waits for a Job being deleted to go, so its name can run again, or stalls
// JobUndeletable once its deletion has taken longer than domain.JobDeletionBound.
func (s StageRunner) deleting(st Stage, ref ports.JobRef, js ports.JobStatus, run StageRun) StageRun {
	if stall := domain.JobDeletionStall(st.describe(ref.Name), js.DeletingSince, s.Clock.Now()); stall != nil {
		run.Stall = stall
		return run
	}
	run.Waiting = st.describe(ref.Name) + " is being deleted"
	return run
}

// start starts run attempt of st, once the backoff after the killed run before it passed, or at
// once after a run whose output was lost.
func (s StageRunner) start(ctx context.Context, runtimeUID string, st Stage, attempt int, killed *ports.JobStatus, lost error, run StageRun) StageRun {
	name := st.job(attempt)
	if killed != nil {
		backoff := domain.JobKillBackoff(attempt - 1)
		if s.Clock.Now().Before(killed.FinishedAt.Add(backoff)) {
			run.Waiting = fmt.Sprintf("%s was killed by %s; run %d of %d starts after a %s backoff",
				st.describe(st.job(attempt-1)), domain.KillCause(*killed), attempt, domain.JobKillAttempts, backoff)
			return run
		}
	}
	spec := ports.JobSpec{Name: name, Kind: st.Kind, Image: s.Image, Args: st.args(s.Jobs, attempt), Inputs: st.Inputs,
		Credentials: st.Credentials, Owner: ports.ReleaseOwner{RuntimeUID: runtimeUID}, Placement: st.Placement}
	if _, err := s.Jobs.Start(ctx, spec); err != nil {
		return run.transient(err)
	}
	switch {
	case killed != nil:
		run.event(true, domain.EventResolveStageStarted, "%s started: run %d of %d, the run before was killed by %s",
			st.describe(name), attempt, domain.JobKillAttempts, domain.KillCause(*killed))
	case lost != nil:
		run.event(true, domain.EventResolveStageStarted, "%s started: run %d of %d, the output of the run before was lost: %v",
			st.describe(name), attempt, domain.JobKillAttempts, lost)
	default:
		run.event(false, domain.EventResolveStageStarted, "%s started", st.describe(name))
	}
	return run.waiting(st, name)
}

// finish uses a succeeded Job's output: only the Job's own that is there and holds what the
// Job wrote, with the AICR version its kind records (domain.JudgeOutputVersion), else lost
// says why it is lost and nothing of it is used; only of the pinned AICR version, else
// AICRVersionMismatch; kept and the Job deleted when the stage keeps its result; something in
// the way of the kept result stalls ForeignObject.
func (s StageRunner) finish(ctx context.Context, runtimeUID string, st Stage, ref ports.JobRef, js ports.JobStatus, run StageRun) (_ StageRun, lost error) {
	files, err := s.Jobs.Output(ctx, ref)
	switch {
	case errors.Is(err, ports.ErrOutputLost), errors.Is(err, ports.ErrUntrustedOutput):
		return run, err
	case err != nil:
		return run.transient(err), nil
	}
	stall, err := domain.JudgeOutputVersion(st.Kind, s.AICRVersion, js.AICRVersion)
	if err != nil {
		return run, fmt.Errorf("%s: %w", st.describe(ref.Name), err)
	}
	if stall != nil {
		run.Stall = stall.Reworded(st.describe(ref.Name)+": ", "")
		return run, nil
	}
	if st.KeepRole != "" {
		err = s.Jobs.Keep(ctx, ref, st.kept(runtimeUID))
		if errors.Is(err, ports.ErrForeignObject) {
			run.Stall = domain.PortStall(st.describe(ref.Name)+": keep result", err)
			return run, nil
		}
		if err != nil {
			return run.transient(err), nil
		}
		if err = s.Jobs.Delete(ctx, ref); err != nil {
			return run.transient(err), nil
		}
	}
	run.event(false, domain.EventResolveStageSucceeded, "%s succeeded", st.describe(ref.Name))
	run.Files, run.JobUID = files, js.UID
	return run, nil
}

// fail classifies failed run attempt of st (RES-4): a transient exit deletes the Job so the
// retry starts a fresh one; a terminal one keeps it for inspection and stalls with AICR's
// category; the last of the killed runs keeps every run and stalls JobPodKilled.
func (s StageRunner) fail(ctx context.Context, st Stage, attempt int, js ports.JobStatus, exit domain.AICRExit, run StageRun) StageRun {
	ref := ports.JobRef{Name: st.job(attempt)}
	switch {
	case exit.Transient:
		if err := s.Jobs.Delete(ctx, ref); err != nil {
			return run.transient(err)
		}
		return run.transient(fmt.Errorf("%s: %s (exit code %d)", st.describe(ref.Name), exit.Category, js.ExitCode))
	case exit.Killed:
		if err := s.retainRuns(ctx, st, attempt); err != nil {
			return run.transient(err)
		}
		stall := domain.JobKilledStall(st.describe(ref.Name), js)
		run.Stall = stall.Reworded("", "; "+newResolution)
		return run
	}
	if err := s.Jobs.Retain(ctx, ref); err != nil {
		return run.transient(err)
	}
	run.Stall = exit.Stall.Reworded(st.describe(ref.Name)+" failed: ", "")
	return run
}

// outputLost keeps every run of st, the last of which (attempt) lost its output as cause says,
// and stalls JobOutputLost.
func (s StageRunner) outputLost(ctx context.Context, st Stage, attempt int, cause error, run StageRun) StageRun {
	if err := s.retainRuns(ctx, st, attempt); err != nil {
		return run.transient(err)
	}
	run.Stall = domain.JobOutputLostStall(st.describe(st.job(attempt)), cause).Reworded("", "; "+newResolution)
	return run
}

// retainRuns keeps runs 1 to attempt of st for inspection.
func (s StageRunner) retainRuns(ctx context.Context, st Stage, attempt int) error {
	for n := 1; n <= attempt; n++ {
		if err := s.Jobs.Retain(ctx, ports.JobRef{Name: st.job(n)}); err != nil {
			return err
		}
	}
	return nil
}

// DeleteStageJobs deletes every run of the stage named name (RES-7: once its result is
// recorded): the Job of that name and those of its later runs.
func DeleteStageJobs(ctx context.Context, jobs ports.JobRunner, name string) error {
	st := Stage{Name: name}
	for n := 1; n <= domain.JobKillAttempts; n++ {
		if err := jobs.Delete(ctx, ports.JobRef{Name: st.job(n)}); err != nil {
			return err
		}
	}
	return nil
}

// deleteKeptRun deletes the Job of st's run whose output is kept when it is still there
// (RES-7): an operator stopped between keeping the result and deleting the Job left it. That
// run is the one that succeeded with its output at hand; the runs before it, killed or whose
// output was lost, are left to their TTL as when the stage ran. It looks before it deletes, so
// a stage whose Jobs are gone costs no write.
func (s StageRunner) deleteKeptRun(ctx context.Context, st Stage) error {
	for n := 1; n <= domain.JobKillAttempts; n++ {
		ref := ports.JobRef{Name: st.job(n)}
		js, err := s.Jobs.Status(ctx, ref)
		switch {
		case errors.Is(err, ports.ErrJobNotFound):
			continue
		case err != nil:
			return err
		case js.State != ports.JobSucceeded || !js.DeletingSince.IsZero():
			continue
		}
		_, err = s.Jobs.Output(ctx, ref)
		switch {
		case errors.Is(err, ports.ErrOutputLost), errors.Is(err, ports.ErrUntrustedOutput):
			continue
		case err != nil:
			return err
		}
		if err = s.Jobs.Delete(ctx, ref); err != nil {
			return err
		}
	}
	return nil
}

// DeleteLeftStageJobs is DeleteStageJobs for a stage whose result was recorded earlier: it
// deletes the runs whose Jobs are still there (an operator stopped after recording the result
// and before deleting them left them), looking before it deletes, so a stage whose Jobs are
// gone costs no write; a Job being deleted already is left to go.
func DeleteLeftStageJobs(ctx context.Context, jobs ports.JobRunner, name string) error {
	st := Stage{Name: name}
	for n := 1; n <= domain.JobKillAttempts; n++ {
		ref := ports.JobRef{Name: st.job(n)}
		js, err := jobs.Status(ctx, ref)
		switch {
		case errors.Is(err, ports.ErrJobNotFound):
			continue
		case err != nil:
			return err
		case !js.DeletingSince.IsZero():
			continue
		}
		if err = jobs.Delete(ctx, ref); err != nil {
			return err
		}
	}
	return nil
}

// job is the name of run attempt of st: its Name, then Name-<attempt> for a run after a kill.
func (st Stage) job(attempt int) string {
	if attempt <= 1 {
		return st.Name
	}
	return st.Name + "-" + strconv.Itoa(attempt)
}

// args are st's arguments for run attempt: a later run writes to its own output, so the
// stage's output destination (OutputRef of its Name) becomes the run's.
func (st Stage) args(jobs ports.JobRunner, attempt int) []string {
	if attempt <= 1 {
		return st.Args
	}
	from, to := jobs.OutputRef(st.Name), jobs.OutputRef(st.job(attempt))
	args := slices.Clone(st.Args)
	for i := range args {
		if args[i] == from {
			args[i] = to
		}
	}
	return args
}

func (st Stage) describe(job string) string {
	return fmt.Sprintf("aicr %s job %s", st.Kind, job)
}

func (st Stage) kept(runtimeUID string) ports.KeptResult {
	return ports.KeptResult{Name: st.Name, Role: st.KeepRole, RuntimeUID: runtimeUID}
}

func (r *StageRun) event(warning bool, reason domain.EventReason, format string, args ...any) {
	r.Events = append(r.Events, StageEvent{Warning: warning, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (r StageRun) transient(err error) StageRun {
	r.Transient = err
	return r
}

func (r StageRun) waiting(st Stage, job string) StageRun {
	r.Waiting = st.describe(job) + " running"
	return r
}
