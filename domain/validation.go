package domain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// validationRecipeFile is the validation recipe's file among the validation job's inputs.
const validationRecipeFile = "recipe.yaml"

// MaxValidationAttempts bounds the runs of one rollout's deployment validation: a run that
// ends transiently (AICR exit 6, 7 or 9: unavailable, rate limited, killed) starts a fresh
// one, at most this many in all, before the rollout fails (RES-4, RO-10).
const MaxValidationAttempts = 3

// DefaultValidationTimeout bounds one deployment validation run when the installation sets no
// bound of its own (the chart's validation.timeout, --validation-timeout): longer than the
// default jobs.activeDeadlineSeconds (1h), so that deadline ends a slow run first, and the
// bound ends a run the deadline does not (a pod that never runs, no deadline).
const DefaultValidationTimeout = 2 * time.Hour

// validationTimeout is how long one validation run may take: ValidationTimeout when set, else
// DefaultValidationTimeout.
func (e Environment) validationTimeout() time.Duration {
	if e.ValidationTimeout > 0 {
		return e.ValidationTimeout
	}
	return DefaultValidationTimeout
}

// validate runs AICR deployment validation as a job and records evidence (RO-10).
// A run starts only once the engine objects show every step made (stepsShown). A run is
// abandoned once the runtime's target moves (abandonValidation), and ends the rollout once it
// has run longer than its bound (validationTimedOut).
func (r *Rollout) validate(ctx context.Context, p Ports, env Environment, now time.Time) (Outcome, error) {
	ref := ports.JobRef{Name: r.status.ValidationRun}
	if env.TargetPlanDigest != r.spec.ToPlanDigest {
		return r.abandonValidation(ctx, p, ref, env)
	}
	st, err := p.Jobs.Status(ctx, ref)
	if errors.Is(err, ports.ErrJobNotFound) {
		if env.holds() {
			return Outcome{Status: r.status}, nil
		}
		if out, rewound, listErr := r.stepsShown(ctx, p, env, now); rewound {
			return out, listErr
		}
		if _, err = p.Jobs.Start(ctx, r.validationJob(p.Jobs, env)); err != nil {
			return r.stallOrError("start validation", err)
		}
		r.status.ValidationStartedAt = now
		return Outcome{Status: r.status, RequeueAfter: pollInterval, Event: r.status.Message + " started"}, nil
	}
	if err != nil {
		return r.stallOrError("validation status", err)
	}
	switch st.State {
	case ports.JobSucceeded:
		return r.validated(ctx, p, env, ref, now)
	case ports.JobFailed:
		return r.validationFailed(ctx, p, ref, st, now)
	case ports.JobRunning:
	}
	if out, decided, err := r.validationTimedOut(ctx, p, ref, env, now); decided || err != nil {
		return out, err
	}
	if s := JobDeletionStall("deployment validation run "+ref.Name, st.DeletingSince, now); s != nil {
		out := r.stalled(s)
		out.RequeueAfter = pollInterval // no watch sees the Job go: poll, so the run starts again
		return out, nil
	}
	if s := JobWaitStall("deployment validation run "+ref.Name, st.Waiting, now); s != nil {
		out := r.stalled(s)
		out.RequeueAfter = pollInterval // no watch sees the pod start: poll, so the run goes on
		return out, nil
	}
	return Outcome{Status: r.status, RequeueAfter: pollInterval}, nil
}

// validationFailed retries a run that ended transiently or was killed from outside AICR under
// the next attempt name, after a backoff from its end, while attempts remain; any other failed
// run fails the rollout and is kept for inspection (RES-7: seven days).
func (r *Rollout) validationFailed(ctx context.Context, p Ports, ref ports.JobRef, st ports.JobStatus, now time.Time) (Outcome, error) {
	exit := ClassifyJobFailure(st)
	attempt := validationAttempt(r.spec.Name, ref.Name)
	if !exit.Transient && !exit.Killed || attempt >= MaxValidationAttempts {
		if err := p.Jobs.Retain(ctx, ref); err != nil {
			return r.stallOrError("retain validation run", err)
		}
		msg := st.Message
		switch {
		case st.DeadlineExceeded:
			msg = exit.Stall.Message()
		case exit.Killed:
			msg = "killed by " + KillCause(st)
		}
		return r.end(PhaseFailed, "deployment validation run "+ref.Name+" failed: "+msg), nil
	}
	if wait := st.FinishedAt.Add(JobKillBackoff(attempt)).Sub(now); wait > 0 {
		return Outcome{Status: r.status, RequeueAfter: wait}, nil
	}
	r.status.ValidationRun = r.spec.Name + validationSuffix + "-" + strconv.Itoa(attempt+1)
	r.status.ValidationStartedAt = time.Time{}
	r.status.Message = fmt.Sprintf("%s ended %s (exit code %d); retrying as %s",
		ValidationMessage(r.spec.Name, ref.Name), exit.Category, st.ExitCode, r.status.ValidationRun)
	return Outcome{Status: r.status, RequeueAfter: pollInterval, Event: r.status.Message}, nil
}

// validationAttempt is the attempt number of run: 1 for <rollout>-validate, n for
// <rollout>-validate-<n>.
func validationAttempt(rollout, run string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(run, rollout+validationSuffix+"-"))
	if err != nil || n < 2 {
		return 1
	}
	return n
}

// validationJob is `aicr validate` of the deployment phase against the target plan's
// validation recipe (PLAN-2), placed as the environment says, its snapshot agent and checks
// run in the validation namespace,
// the agent from the same pinned AICR image (--image). It never fails on
// failed checks (--fail-on-error=false): the CTRF report it writes to the job's output decides,
// the exit code only says whether the run completed (docs/design/aicr-cli.md sections 4 and 8).
func (r *Rollout) validationJob(jobs ports.JobRunner, env Environment) ports.JobSpec {
	name := r.status.ValidationRun
	return ports.JobSpec{
		Name: name, Kind: ports.JobValidate, Image: env.ValidationImage,
		Args:      ValidationArgs(env.ValidationNamespace, env.ValidationImage, jobs.OutputRef(name)),
		Inputs:    map[string][]byte{validationRecipeFile: env.ValidationRecipe},
		Owner:     ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name},
		Placement: env.ValidationPlacement,
	}
}

// ValidationArgs are the arguments of `aicr validate` for the deployment phase: the recipe
// from the Job's inputs, the checks and AICR's own snapshot agent (no -s) in namespace, the
// agent from image, the report written to output whatever the checks say.
func ValidationArgs(namespace, image, output string) []string {
	return []string{
		"--log-json", "validate", "-r", ports.JobInputsDir + "/" + validationRecipeFile,
		"--phase", "deployment", "--namespace", namespace, "--image", image,
		"--fail-on-error=false", "-o", output,
	}
}

// validated judges a completed validation run by its report: a missing or unreadable report or
// a failed check fails the rollout; a passed run stores the evidence with the report byte for
// byte and ends the rollout Succeeded, once the engine objects still show every step made.
func (r *Rollout) validated(ctx context.Context, p Ports, env Environment, ref ports.JobRef, now time.Time) (Outcome, error) {
	files, err := p.Jobs.Output(ctx, ref)
	if err != nil && !errors.Is(err, ports.ErrJobNotFound) && !errors.Is(err, ports.ErrOutputLost) {
		return r.stallOrError("validation report", err)
	}
	var report []byte
	if files != nil {
		if report, err = fs.ReadFile(files, ports.JobArtifactFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Outcome{Status: r.status}, err
		}
	}
	if err = JudgeValidationReport(report); err != nil {
		if rerr := p.Jobs.Retain(ctx, ref); rerr != nil {
			return r.stallOrError("retain validation run", rerr)
		}
		return r.end(PhaseFailed, "deployment validation run "+ref.Name+" failed: "+err.Error()), nil
	}
	// An engine object edited while validation ran is not what was validated: the rollout goes
	// back to its step, which writes it again, and no evidence is written.
	if out, rewound, listErr := r.stepsShown(ctx, p, env, now); rewound {
		return out, listErr
	}
	ev, err := r.evidence(ctx, p, env)
	if err != nil {
		return r.stallOrError("collect validation evidence", err)
	}
	ev.Report = report
	digest, err := p.Registry.PushEvidence(ctx, ev)
	if err != nil {
		return r.stallOrError("push validation evidence", err)
	}
	out := r.end(PhaseSucceeded, "deployment validation passed")
	out.EvidenceDigest = digest
	return out, nil
}
