package domain

import (
	"context"
	"errors"
	"io/fs"

	"github.com/nvidia/aicr-operator/ports"
)

// validationRecipeFile is the validation recipe's file among the validation job's inputs.
const validationRecipeFile = "recipe.yaml"

// validate runs AICR deployment validation as a job and records evidence (RO-10).
func (r *Rollout) validate(ctx context.Context, p Ports, env Environment) (Outcome, error) {
	ref := ports.JobRef{Name: r.status.ValidationRun}
	st, err := p.Jobs.Status(ctx, ref)
	if errors.Is(err, ports.ErrJobNotFound) {
		if _, err = p.Jobs.Start(ctx, r.validationJob(p.Jobs, env)); err != nil {
			return r.stallOrError("start validation", err)
		}
		return Outcome{Status: r.status, RequeueAfter: pollInterval, Event: r.status.Message + " started"}, nil
	}
	if err != nil {
		return r.stallOrError("validation status", err)
	}
	switch st.State {
	case ports.JobSucceeded:
		return r.validated(ctx, p, env, ref)
	case ports.JobFailed:
		return r.end(PhaseFailed, "deployment validation run "+ref.Name+" failed: "+st.Message), nil
	case ports.JobRunning:
	}
	return Outcome{Status: r.status, RequeueAfter: pollInterval}, nil
}

// validationJob is `aicr validate` of the deployment phase against the target plan's
// validation recipe (PLAN-2), its checks run in the validation namespace. It never fails on
// failed checks (--fail-on-error=false): the CTRF report it writes to the job's output decides,
// the exit code only says whether the run completed (AICR-CLI.md sections 4 and 8).
func (r *Rollout) validationJob(jobs ports.JobRunner, env Environment) ports.JobSpec {
	name := r.status.ValidationRun
	return ports.JobSpec{
		Name: name, Kind: ports.JobValidate, Image: env.ValidationImage,
		Args: []string{
			"--log-json", "validate", "-r", ports.JobInputsDir + "/" + validationRecipeFile,
			"--phase", "deployment", "--namespace", env.ValidationNamespace,
			"--fail-on-error=false", "-o", jobs.OutputRef(name),
		},
		Inputs: map[string][]byte{validationRecipeFile: env.ValidationRecipe},
		Owner:  ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name},
	}
}

// validated judges a completed validation run by its report: a missing or unreadable report or
// a failed check fails the rollout; a passed run stores the evidence with the report byte for
// byte and ends the rollout Succeeded.
func (r *Rollout) validated(ctx context.Context, p Ports, env Environment, ref ports.JobRef) (Outcome, error) {
	files, err := p.Jobs.Output(ctx, ref)
	if err != nil && !errors.Is(err, ports.ErrJobNotFound) {
		return r.stallOrError("validation report", err)
	}
	var report []byte
	if files != nil {
		if report, err = fs.ReadFile(files, ports.JobArtifactFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Outcome{Status: r.status}, err
		}
	}
	if err = judgeValidationReport(report); err != nil {
		return r.end(PhaseFailed, "deployment validation run "+ref.Name+" failed: "+err.Error()), nil
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
