package domain

import (
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// preCheck decides, without I/O, whether the rollout can proceed at all. The
// chain runs on every Advance in order; the first non-nil stall wins.
type preCheck func(r *Rollout, env Environment) *Stall

var preChecks = []preCheck{planOfAnotherRuntime, stepsKnown, planWithoutRecipe, validationUnavailable, transitionBlocked}

func planOfAnotherRuntime(r *Rollout, env Environment) *Stall {
	if env.Target != nil && env.Target.RuntimeUID != r.spec.RuntimeUID {
		return stallf(StallPlanOfAnotherRuntime, fmt.Sprintf(
			"plan %s records runtime %s, the rollout belongs to runtime %s", env.Target.Digest, env.Target.RuntimeUID, r.spec.RuntimeUID))
	}
	return nil
}

// stepsKnown rejects steps this operator cannot execute: an unknown
// operation, a target release missing from the target plan or a Remove of a
// release missing from the active plan. It runs on every Advance, so each plan's
// releases are looked up in a set built once, not searched for each step.
func stepsKnown(r *Rollout, env Environment) *Stall {
	target, active := releaseRefs(env.Target), releaseRefs(env.Active)
	for i, s := range r.spec.Steps {
		var ok bool
		switch s.Operation {
		case OpInstall, OpUpgrade, OpVerify, OpAdopt:
			ok = env.Target == nil || target[s.Release]
		case OpRemove:
			ok = env.Active == nil || active[s.Release]
		}
		if !ok {
			return stallf(StallStepUnknown, fmt.Sprintf("step %d/%d %s (%s) cannot be executed by this operator",
				i+1, len(r.spec.Steps), s.Release.ID, s.Operation))
		}
	}
	return nil
}

// releaseRefs returns the refs of p's releases as a set (empty for a nil plan).
func releaseRefs(p *Plan) map[ports.ReleaseRef]bool {
	if p == nil {
		return nil
	}
	refs := make(map[ports.ReleaseRef]bool, len(p.Releases))
	for i := range p.Releases {
		refs[p.Releases[i].Ref()] = true
	}
	return refs
}

// planWithoutRecipe refuses a target plan without a validation recipe while deployment
// validation is Required or running (PLAN-5, RO-10): a rebuilt plan, or a plan whose recipe
// the caller could not read.
func planWithoutRecipe(r *Rollout, env Environment) *Stall {
	needed := env.ValidationRequired || r.status.Phase == PhaseValidating
	if needed && env.Target != nil && (!env.Target.HasRecipe || len(env.ValidationRecipe) == 0) {
		return stallf(StallPlanWithoutRecipe, fmt.Sprintf(
			"plan %s has no recipe and deployment validation is Required", env.Target.Digest))
	}
	return nil
}

func validationUnavailable(r *Rollout, env Environment) *Stall {
	if env.ValidationRequired && !env.ValidationEnabled && r.status.Step == 0 && r.status.StepStartedAt.IsZero() {
		return stallf(StallValidationUnavailable,
			"deployment validation is Required but disabled in the operator chart (validation.enabled)")
	}
	return nil
}

func transitionBlocked(r *Rollout, _ Environment) *Stall {
	for _, s := range r.spec.Steps {
		if s.Assessment == ports.VerdictBlocked {
			return stallf(StallTransitionBlocked, fmt.Sprintf("AICR upgrade-check blocks %s", s.Release.ID))
		}
	}
	return nil
}

// blocked is the outcome of a rollout a pre-check stops: no step of it can run, so it ends
// Orphaned once its runtime is being deleted, and once the runtime's target has moved on it ends Superseded and the runtime can roll out its new target
// (a blocked transition, steps or a plan it cannot use would otherwise hold the runtime until
// someone deleted the rollout); until then it stalls with s.
func (r *Rollout) blocked(s *Stall, env Environment) Outcome {
	if env.Deleting {
		return r.end(PhaseOrphaned, deletingMessage+", while "+s.Message())
	}
	if env.TargetPlanDigest != "" && env.TargetPlanDigest != r.spec.ToPlanDigest {
		return r.end(PhaseSuperseded, "the runtime's target is now plan "+env.TargetPlanDigest+", while "+s.Message())
	}
	return r.stalled(s)
}
