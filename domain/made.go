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
// objects' word (RO-8): a status claiming a start is not a write.
func (r *Rollout) mutationMade(s Step, st ports.ReleaseStatus, exists, trustStart bool) bool {
	if r.mutationShown(s, st, exists) {
		return true
	}
	if !trustStart || r.status.StepStartedAt.IsZero() {
		return false
	}
	return s.Operation == OpRemove || exists && r.writtenForTarget(st)
}

// mutationShown reports whether the engine object shows the step's mutation made by this
// rollout: for a Remove, the object is gone or its removal began; for any other step, the
// object records this runtime and the target plan, and this rollout wrote it or the engine
// synced it since the rollout was created (RemoteNotBefore: the engine's clock against the API
// server's).
func (r *Rollout) mutationShown(s Step, st ports.ReleaseStatus, exists bool) bool {
	if s.Operation == OpRemove {
		return !exists || st.Removing
	}
	return exists && r.writtenForTarget(st) && (st.Owner.Rollout == r.spec.Name || RemoteNotBefore(st.LastSyncAt, r.spec.CreatedAt))
}

// writtenForTarget reports whether the engine object records this runtime and the target plan.
func (r *Rollout) writtenForTarget(st ports.ReleaseStatus) bool {
	return st.Owner.RuntimeUID == r.spec.RuntimeUID && st.Owner.PlanDigest == r.spec.ToPlanDigest
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
		if r.mutationShown(s, st, exists) {
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
