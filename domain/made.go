package domain

import (
	"context"
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// mutationMade judges whether this rollout already made the step's mutation: what the engine
// objects show (mutationShown) or, only while the approval is valid (trustStart), a step start
// the status records. A revoked or expired approval lets a step finish only on the engine
// objects' word (RO-8): a status claiming a start is not a write. planned is the digest of the
// spec the step writes (plannedDigest).
func (r *Rollout) mutationMade(s Step, st ports.ReleaseStatus, exists, trustStart bool, planned string) bool {
	if r.mutationShown(s, st, exists, planned) {
		return true
	}
	if !trustStart || r.status.StepStartedAt.IsZero() {
		return false
	}
	return s.Operation == OpRemove || exists && r.writtenForTarget(st, planned)
}

// mutationShown reports whether the engine object shows the step's mutation made by this
// rollout: for a Remove, the object is gone or its removal began; for any other step, the
// object asks for exactly the spec the step writes, records this runtime and the target plan,
// and this rollout wrote it or the engine synced it since the rollout was created
// (RemoteNotBefore: the engine's clock against the API server's).
func (r *Rollout) mutationShown(s Step, st ports.ReleaseStatus, exists bool, planned string) bool {
	if s.Operation == OpRemove {
		return !exists || st.Removing
	}
	return exists && r.writtenForTarget(st, planned) &&
		(st.Owner.Rollout == r.spec.Name || RemoteNotBefore(st.LastSyncAt, r.spec.CreatedAt))
}

// writtenForTarget reports whether the engine object asks for the planned spec and records this
// runtime and the target plan. The records are annotations anybody who may edit the object can
// forge; the spec digest is computed from the object's spec itself, so an object edited by hand
// (or whose annotations alone were rewritten) is not the step's, and the step writes it again.
func (r *Rollout) writtenForTarget(st ports.ReleaseStatus, planned string) bool {
	return st.Matches(planned) && st.Owner.RuntimeUID == r.spec.RuntimeUID && st.Owner.PlanDigest == r.spec.ToPlanDigest
}

// plannedDigest is the digest of the spec step s writes: DeploymentEngine.SpecDigest of the
// target plan's release, rendered by the engine from the plan, never read back from the
// engine object. A Remove step writes no spec ("").
func (r *Rollout) plannedDigest(p Ports, env Environment, s Step) (string, error) {
	if s.Operation == OpRemove {
		return "", nil
	}
	if env.Target == nil {
		return "", fmt.Errorf("the target plan %s is not known: the spec of %s cannot be rendered", r.spec.ToPlanDigest, s.Release)
	}
	d, err := p.Engine.SpecDigest(env.Target.ReleaseSpec(s.Release, ports.ReleaseOwner{}))
	if err != nil {
		return "", fmt.Errorf("spec digest of %s: %w", s.Release, err)
	}
	return d, nil
}

// stepsShown checks, before the rollout leaves its steps (a validation run or an outcome),
// that the engine objects show every step's mutation made: a status claiming steps finished
// that were never made is not a reason to validate or to succeed. Otherwise the rollout goes
// back to the first step not shown (done is true), where the approval gate decides: a step
// not made never starts under a revoked or expired approval, which ends the rollout (RO-8).
func (r *Rollout) stepsShown(ctx context.Context, p Ports, env Environment, now time.Time) (out Outcome, done bool, err error) {
	live, err := p.Engine.List(ctx)
	if err != nil {
		out, err = r.stallOrError("list engine objects", err)
		return out, true, err
	}
	byRef := make(map[ports.ReleaseRef]ports.ReleaseStatus, len(live))
	for _, st := range live {
		byRef[st.Ref] = st
	}
	for i, s := range r.spec.Steps {
		st, exists := byRef[s.Release]
		planned, err := r.plannedDigest(p, env, s)
		if err != nil {
			out, err = r.stallOrError("render the plan's spec", err)
			return out, true, err
		}
		if r.mutationShown(s, st, exists, planned) {
			continue
		}
		r.status = RolloutStatus{Phase: PhaseProgressing, Step: i}
		if out, ended := r.approvalGate(env, now); ended {
			return out, true, nil
		}
		r.status.Message = fmt.Sprintf("the status claimed every step finished, the engine objects do not show %s made",
			StepMessage(r.spec.Name, i, len(r.spec.Steps), s))
		return Outcome{Status: r.status, Event: r.status.Message}, true, nil
	}
	return Outcome{}, false, nil
}
