package domain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

const (
	pollInterval     = 10 * time.Second
	validationSuffix = "-validate"
)

// Advance moves the rollout forward by at most one decision (one mutation
// through a port, or one phase change). It performs no I/O other than through
// p, takes "now" only from p.Clock and is safe to call on every reconcile.
// The error is only for transient failures (retry with backoff); business
// states (waiting, stalled, ended) are values in the Outcome.
//
// The status it was handed is a claim, not a decision: no mutation goes through a
// port unless the approval the spec requires is given and valid, judged from the
// spec on every call (unapprovedClaim, approvalValid); steps are judged from the
// engine objects before the rollout validates or succeeds (stepsShown). A rollout
// handed in a terminal phase is returned as it is with Outcome.Ended false; an
// outcome decided in this call has Outcome.Ended true.
func (r *Rollout) Advance(ctx context.Context, p Ports, env Environment) (Outcome, error) {
	from := r.status
	out, err := r.advance(ctx, p, env)
	if out.Event != "" {
		out.EventReason, out.EventWarning = decisionEvent(from, out.Status)
	}
	return out, err
}

// advance takes one decision; Advance names its Event.
func (r *Rollout) advance(ctx context.Context, p Ports, env Environment) (Outcome, error) {
	if r.status.Phase.Terminal() {
		return Outcome{Status: r.status, Stall: terminalStall(r.status.Phase, r.spec.Name, r.status.Message)}, nil
	}
	if env.RuntimeUID != r.spec.RuntimeUID {
		return r.end(PhaseOrphaned, "its ClusterRuntime is gone or has another UID"), nil
	}
	if env.Deleting && r.status.Phase != PhaseProgressing {
		// No step is in flight outside Progressing: the rollout ends at once (CR-12).
		return r.end(PhaseOrphaned, deletingMessage), nil
	}
	r.normalizeClaims()
	for _, check := range preChecks {
		if s := check(r, env); s != nil {
			return r.blocked(s, env), nil
		}
	}
	now := p.Clock.Now()
	if out, back := r.unapprovedClaim(env, now); back {
		return out, nil
	}
	switch r.status.Phase {
	case PhasePending:
		return r.pending(ctx, p, env, now)
	case PhaseAwaitingApproval:
		out := r.awaitingApproval(env, now)
		if out.Status.Phase == PhaseProgressing {
			return r.checkBoundInventory(ctx, p, out)
		}
		if out.Status.Phase == PhaseRevoked || out.Status.Phase == PhaseExpired {
			return r.endedAfterApproval(ctx, p, out)
		}
		return out, nil
	case PhaseProgressing:
		return r.progress(ctx, p, env, now)
	case PhaseAwaitingAcknowledgement:
		// The step waits, before its apply, for the recorded steps to be acknowledged; it is
		// not applied once the approval was revoked or expired or the target moved (RO-8, RO-9).
		if out, ended := r.approvalGate(env, now); ended {
			return out, nil
		}
		return r.acknowledged(ctx, p, env, now)
	case PhaseValidating:
		return r.validate(ctx, p, env, now)
	case PhaseSucceeded, PhaseFailed, PhaseExpired, PhaseRevoked, PhaseSuperseded, PhaseOrphaned:
	}
	return Outcome{Status: r.status}, nil
}

// pending checks the engine and the starting inventory, then waits for
// approval or starts the first step.
func (r *Rollout) pending(ctx context.Context, p Ports, env Environment, now time.Time) (Outcome, error) {
	if err := p.Engine.Check(ctx); err != nil {
		return r.stallOrError("deployment engine", err)
	}
	if env.TargetPlanDigest != r.spec.ToPlanDigest {
		return r.end(PhaseSuperseded, "the runtime's target is now plan "+env.TargetPlanDigest), nil
	}
	made, drift, err := r.checkInventory(ctx, p)
	if err != nil {
		return r.stallOrError("list engine objects", err)
	}
	if drift != nil {
		return r.stalled(drift), nil
	}
	if made && (!r.spec.ApprovalRequired || r.spec.Approval.Approved()) {
		// Restored while in progress: progress finds the first step whose
		// mutation is not made and gates it on the approval (RO-8, RO-13).
		r.status.Phase, r.status.Message = PhaseProgressing, ""
		return Outcome{Status: r.status, Event: "rollout " + r.spec.Name +
			" resumed: its engine objects show steps it made before its status was lost"}, nil
	}
	if r.spec.ApprovalRequired {
		r.status.Phase = PhaseAwaitingApproval
		return r.awaitingApproval(env, now), nil
	}
	if env.holds() {
		return r.held(now), nil
	}
	r.status.Phase, r.status.Message = PhaseProgressing, ""
	return Outcome{Status: r.status, Event: "rollout " + r.spec.Name + " started"}, nil
}

// checkBoundInventory checks, when the approval arrives, that the live inventory is still the one the
// rollout started from: the approval is bound to the starting inventory (RO-8), so drift
// while the rollout waited stalls InventoryDrift before the first step instead of moving
// releases the approver did not see.
func (r *Rollout) checkBoundInventory(ctx context.Context, p Ports, approved Outcome) (Outcome, error) {
	_, drift, err := r.checkInventory(ctx, p)
	if err == nil && drift == nil {
		return approved, nil
	}
	r.status.Phase = PhaseAwaitingApproval
	if err != nil {
		return r.stallOrError("list engine objects", err)
	}
	drift = drift.Reworded("", ", which the approval is bound to")
	return r.stalled(drift), nil
}

// checkInventory judges the live engine objects against the starting inventory: made reports
// that they show a step this rollout made (stepsMade); drift is the InventoryDrift stall when
// they differ from the starting inventory and its own steps do not explain it.
func (r *Rollout) checkInventory(ctx context.Context, p Ports) (made bool, drift *Stall, err error) {
	live, err := p.Engine.List(ctx)
	if err != nil {
		return false, nil, err
	}
	inv, err := InventoryDigest(live)
	if err != nil {
		return false, nil, err
	}
	drifted := r.spec.StartingInventoryDigest != "" && inv != r.spec.StartingInventoryDigest
	made = r.stepsMade(live, drifted)
	if drifted && !made {
		drift = stallf(StallInventoryDrift, fmt.Sprintf(
			"live inventory %s differs from the starting inventory %s", inv, r.spec.StartingInventoryDigest))
	}
	return made, drift, nil
}

// endedAfterApproval keeps a rollout whose approval was revoked or expired going when its first
// step was already written: the reconcile that saw the approval can write that step and crash
// before it records Progressing. A revoked or expired approval ends the rollout only before a
// step whose mutation it has not made, judged from the engine objects (RO-8, RO-12): progress
// lets the step in flight finish and ends the rollout before the next one.
func (r *Rollout) endedAfterApproval(ctx context.Context, p Ports, ended Outcome) (Outcome, error) {
	if !r.spec.Approval.Approved() {
		return ended, nil
	}
	made, _, err := r.checkInventory(ctx, p)
	if err != nil || !made {
		return ended, err
	}
	r.status.Phase, r.status.Message = PhaseProgressing, ""
	return Outcome{Status: r.status, Event: "rollout " + r.spec.Name +
		" goes on: its first step was written before its approval ended"}, nil
}

// stepsMade reports, from the engine objects, whether this rollout already
// made a step's mutation: a rollout restored while in progress comes back
// without status, so Pending (RO-12, RO-13). Either an engine object records
// this rollout and its target plan, which only a step of this rollout writes,
// and a step runs only after the inventory check passed, so what drifted
// since is no more a reason to stop than for a rollout that kept its status.
// Or, the inventory having drifted, nothing records it yet and the drift is
// exactly the absence of objects its Remove steps (the first steps) delete,
// each put back as the active plan recorded it.
func (r *Rollout) stepsMade(live []ports.ReleaseStatus, drifted bool) bool {
	mine := ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name}
	present := map[ports.ReleaseRef]bool{}
	for _, st := range live {
		if st.Owner == mine {
			return true
		}
		present[st.Ref] = true
	}
	if !drifted {
		return false
	}
	before := slices.Clone(live)
	for _, s := range r.spec.Steps {
		if s.Operation == OpRemove && !present[s.Release] {
			before = append(before, ports.ReleaseStatus{Ref: s.Release,
				Owner: ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.FromPlanDigest}})
		}
	}
	inv, err := InventoryDigest(before)
	return err == nil && len(before) > len(live) && inv == r.spec.StartingInventoryDigest
}

// awaitingApproval waits for an approval until the deadline (RO-8).
func (r *Rollout) awaitingApproval(env Environment, now time.Time) Outcome {
	a := r.spec.Approval
	switch {
	case env.TargetPlanDigest != r.spec.ToPlanDigest:
		return r.end(PhaseSuperseded, "the runtime's target is now plan "+env.TargetPlanDigest)
	case a.Revoked():
		return r.end(PhaseRevoked, fmt.Sprintf("approval revoked by %s: %s", a.RevokedBy, a.RevokeReason))
	case a.Approved() && !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt):
		return r.end(PhaseExpired, "approval expired before the first step")
	case a.Approved():
		r.status.Phase, r.status.Message = PhaseProgressing, ""
		return Outcome{Status: r.status, Event: fmt.Sprintf("rollout %s approved by %s", r.spec.Name, a.ApprovedBy)}
	case !r.spec.Deadline.IsZero() && !now.Before(r.spec.Deadline):
		return r.end(PhaseExpired, "no approval before the deadline")
	}
	r.status.Phase = PhaseAwaitingApproval
	msg := AwaitingApprovalMessage(r.spec.Name)
	if late := r.windowAfterDeadline(env, now); late != "" {
		msg += "; " + late
	}
	out := r.stalled(stallf(StallAwaitingApproval, msg))
	if !r.spec.Deadline.IsZero() {
		out.RequeueAfter = r.spec.Deadline.Sub(now)
	}
	return out
}

// awaitingAcknowledgement pauses the step before its apply until an approver acknowledges its
// transition record's precondition and steps (RO-9), or the DRA kubelet plugin's restart a GPU
// Operator upgrade before it needs (needsDRARestart); it is looked at again
// when the approval expires, to end it then.
func (r *Rollout) awaitingAcknowledgement(now time.Time) Outcome {
	s := r.spec.Steps[r.status.Step]
	r.status.Phase = PhaseAwaitingAcknowledgement
	msg := fmt.Sprintf("rollout %s awaiting acknowledgement of the steps recorded for %s before its apply",
		r.spec.Name, s.Release.ID)
	if needsDRARestart(r.spec.Steps, r.status.Step) {
		msg = fmt.Sprintf("rollout %s awaiting acknowledgement of %s before the apply of %s",
			r.spec.Name, draRestartAcknowledgement, s.Release.ID)
	}
	out := r.stalled(stallf(StallAwaitingAcknowledgement, msg))
	if exp := r.spec.Approval.ExpiresAt; !exp.IsZero() {
		out.RequeueAfter = exp.Sub(now)
	}
	return out
}

// acknowledged applies the paused step once its acknowledgement is given, or keeps waiting.
func (r *Rollout) acknowledged(ctx context.Context, p Ports, env Environment, now time.Time) (Outcome, error) {
	s := r.spec.Steps[r.status.Step]
	if !r.spec.Approval.Acknowledged(s.Release.ID) {
		return r.awaitingAcknowledgement(now), nil
	}
	r.status.Phase = PhaseProgressing
	out, err := r.progress(ctx, p, env, now)
	if out.Event != "" {
		out.Event = s.Release.ID + " acknowledged; " + out.Event
	}
	return out, err
}

// nextStep moves past the finished step.
func (r *Rollout) nextStep(event string) Outcome {
	r.status.Step++
	r.status.StepStartedAt, r.status.StepWrites = time.Time{}, 0
	r.status.Message = ""
	return Outcome{Status: r.status, Event: event}
}

// held is a rollout of a paused runtime, or of one whose engine is suspended, that would start
// its first or next step now: nothing starts, and it is looked at again when its approval
// expires, to end it then (RO-8); a revocation, a moved target or the end of the pause or the
// suspension are changes the rollout controller watches.
func (r *Rollout) held(now time.Time) Outcome {
	out := Outcome{Status: r.status}
	if exp := r.spec.Approval.ExpiresAt; r.spec.ApprovalRequired && !exp.IsZero() {
		out.RequeueAfter = exp.Sub(now)
	}
	return out
}

// approvalGate ends the rollout before a step it has not started when its
// approval expired or was revoked, or its target was superseded (RO-8).
func (r *Rollout) approvalGate(env Environment, now time.Time) (Outcome, bool) {
	a := r.spec.Approval
	switch {
	case env.TargetPlanDigest != r.spec.ToPlanDigest:
		return r.end(PhaseSuperseded, "the runtime's target is now plan "+env.TargetPlanDigest), true
	case !r.spec.ApprovalRequired:
		return Outcome{}, false
	case a.Revoked():
		return r.end(PhaseRevoked, fmt.Sprintf("approval revoked by %s: %s", a.RevokedBy, a.RevokeReason)), true
	case !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt):
		return r.end(PhaseExpired, "approval expired, the step in flight finished"), true
	}
	return Outcome{}, false
}
