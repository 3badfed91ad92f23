package domain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// progress runs the step in flight: make its mutation once, then judge it
// from the engine's state until it is ready, failed or timed out.
func (r *Rollout) progress(ctx context.Context, p Ports, env Environment, now time.Time) (Outcome, error) {
	if r.status.Step >= len(r.spec.Steps) {
		if env.Deleting {
			return r.end(PhaseOrphaned, deletingMessage+", its last step finished"), nil
		}
		if out, rewound, err := r.stepsShown(ctx, p, env, now); rewound {
			return out, err
		}
		return r.finishSteps(env), nil
	}
	s := r.spec.Steps[r.status.Step]
	st, err := p.Engine.Status(ctx, s.Release)
	exists := err == nil
	if err != nil && !errors.Is(err, ports.ErrTargetNotFound) {
		return r.stallOrError("status of "+s.Release.String(), err)
	}
	planned, err := r.plannedDigest(p, env, s)
	if err != nil {
		return r.stallOrError("render the plan's spec", err)
	}
	if !r.mutationMade(s, st, exists, r.approvalValid(now), planned) {
		if env.Deleting {
			return r.end(PhaseOrphaned, deletingMessage+", the step in flight finished"), nil
		}
		if out, ended := r.approvalGate(env, now); ended {
			return out, nil
		}
		if env.holds() {
			return r.held(now), nil
		}
		return r.beforeMutation(ctx, p, env, s, st, exists, now)
	}
	if s.Operation == OpRemove && exists && st.Removing && st.Owner.RuntimeUID == r.spec.RuntimeUID {
		// A removal begun, maybe by a reconcile that crashed between the cascade marker
		// and the delete: finishing it is idempotent (ENG-3).
		owner := ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name}
		if err := p.Engine.Remove(ctx, s.Release, owner); err != nil {
			return r.stallOrError("remove "+s.Release.String(), err)
		}
	}
	return r.judge(s, st, exists, env, now, planned), nil
}

// beforeMutation waits for the acknowledgement and the change policy a step not started needs,
// refuses an engine object the rollout may not write, then makes the step's mutation.
func (r *Rollout) beforeMutation(ctx context.Context, p Ports, env Environment, s Step, st ports.ReleaseStatus,
	exists bool, now time.Time) (Outcome, error) {
	if s.AcknowledgeBeforeApply && !r.spec.Approval.Acknowledged(s.Release.ID) {
		return r.awaitingAcknowledgement(now), nil
	}
	if exists && !r.mayWrite(s, st, env) {
		return r.stalled(r.foreign(s, st)), nil
	}
	if s.Operation != OpRemove && r.status.StepWrites > StepRewriteBound {
		return r.contested(ctx, p, env, s, st, now)
	}
	if out, held, err := r.disruptionGate(ctx, p, env, s, now); held {
		return out, err
	}
	return r.mutate(ctx, p, env, s, st, exists, now)
}

// mayWrite reports whether the step may write the existing engine object of
// its release: one recording this runtime, or for an Adopt the runtime named
// by spec.adoption. Any other object is never written (ENG-2, RO-11 ForeignObject).
func (r *Rollout) mayWrite(s Step, st ports.ReleaseStatus, env Environment) bool {
	switch owner := st.Owner.RuntimeUID; {
	case owner == r.spec.RuntimeUID:
		return true
	case s.Operation == OpAdopt:
		return env.AdoptionRuntimeUID != "" && owner == env.AdoptionRuntimeUID
	}
	return false
}

func (r *Rollout) foreign(s Step, st ports.ReleaseStatus) *Stall {
	if st.Owner.RuntimeUID == "" {
		return stallf(StallForeignObject, fmt.Sprintf(
			"an engine object for %s exists that the operator did not create", s.Release))
	}
	return stallf(StallForeignObject, fmt.Sprintf(
		"the engine object for %s records another runtime (UID %s)", s.Release, st.Owner.RuntimeUID))
}

// mutate makes the step's single mutation through the engine.
func (r *Rollout) mutate(ctx context.Context, p Ports, env Environment, s Step, st ports.ReleaseStatus,
	exists bool, now time.Time) (Outcome, error) {
	owner := ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name}
	var err error
	switch s.Operation {
	case OpRemove:
		err = p.Engine.Remove(ctx, s.Release, owner)
	case OpAdopt:
		if !exists {
			return r.stalled(r.missing(s)), nil
		}
		if st.Owner.RuntimeUID != r.spec.RuntimeUID {
			// Take the object over first, still recording the earlier plan and no
			// rollout, so the step counts as made only once the target is applied
			// below: if that Apply fails, the next reconcile applies it again.
			taken := ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: st.Owner.PlanDigest}
			if err = p.Engine.Adopt(ctx, s.Release, env.AdoptionRuntimeUID, taken); err != nil {
				break
			}
		}
		err = r.apply(ctx, p, env, s, owner)
	case OpInstall:
		err = r.apply(ctx, p, env, s, owner)
	case OpUpgrade, OpVerify:
		if !exists {
			return r.stalled(r.missing(s)), nil
		}
		err = r.apply(ctx, p, env, s, owner)
	}
	if err != nil {
		return r.stallOrError(fmt.Sprintf("%s %s", s.Operation, s.Release), err)
	}
	r.status.StepStartedAt = now
	r.status.StepWrites++
	r.status.Message = StepMessage(r.spec.Name, r.status.Step, len(r.spec.Steps), s)
	event := r.status.Message + " started"
	if o, ok := r.spec.Approval.Override(s.Release.ID); ok && s.Disruption != "" {
		event += fmt.Sprintf(", let go by %s outside the change policy: %s", o.OverriddenBy, o.Reason)
	}
	return Outcome{Status: r.status, RequeueAfter: pollInterval, Event: event, Mutated: true}, nil
}

func (r *Rollout) missing(s Step) *Stall {
	return stallf(StallMovedReleaseMissing, fmt.Sprintf(
		"%s step for %s finds no engine object; it is not repaired from the active plan: restore the engine object "+
			"from a backup with its labels and annotations and the step goes on", s.Operation, s.Release))
}

func (r *Rollout) apply(ctx context.Context, p Ports, env Environment, s Step, owner ports.ReleaseOwner) error {
	return p.Engine.Apply(ctx, env.Target.ReleaseSpec(s.Release, owner))
}

// judge decides whether the mutated step is done, failed or still running.
// A step other than a Remove is done only when the engine object asks for exactly the planned
// spec and the engine reports it synced and healthy at that revision.
func (r *Rollout) judge(s Step, st ports.ReleaseStatus, exists bool, env Environment, now time.Time, planned string) Outcome {
	timeout := env.StepTimeout(s)
	done := !exists
	if s.Operation != OpRemove {
		if st.Operation == ports.OperationFailed && r.failedSinceStep(st) {
			return r.end(PhaseFailed, fmt.Sprintf("step %d/%d %s (%s) sync failed: %s",
				r.status.Step+1, len(r.spec.Steps), s.Release.ID, s.Operation, st.Message))
		}
		done = exists && st.ReadyAt(planned)
	}
	if done {
		return r.nextStep(fmt.Sprintf("%s (%s) ready", s.Release, s.Operation))
	}
	if !r.status.StepStartedAt.IsZero() && now.Sub(r.status.StepStartedAt) > timeout {
		return r.end(PhaseFailed, fmt.Sprintf("step %d/%d %s (%s) not ready within %s: %s",
			r.status.Step+1, len(r.spec.Steps), s.Release.ID, s.Operation, timeout, lastSeen(s, st, exists)))
	}
	if r.status.StepStartedAt.IsZero() {
		r.status.StepStartedAt = now // restored rollout: the action timeout starts now
	}
	r.status.Message = StepWaitingMessage(r.spec.Name, r.status.Step, len(r.spec.Steps), s, st.Object,
		r.status.StepStartedAt, timeout)
	return Outcome{Status: r.status, RequeueAfter: pollInterval}
}

// lastSeen says what the engine last reported of a step that did not settle, so a timed-out
// step names its cause: a release whose workloads fail (a crash loop the engine reports as
// Degraded), a sync that never finished, or an engine object still being deleted.
func lastSeen(s Step, st ports.ReleaseStatus, exists bool) string {
	health := st.Health
	if health == "" {
		health = ports.HealthUnknown
	}
	var seen string
	switch {
	case s.Operation == OpRemove:
		seen = "the engine object is still being deleted"
	case !exists:
		seen = "the engine object is missing"
	case !st.Synced():
		seen = "not synced to the step's revision, health " + string(health)
	default:
		seen = "synced, health " + string(health)
	}
	if st.Message != "" && exists {
		seen += " (" + st.Message + ")"
	}
	return "the engine last reported " + seen
}

// failedSinceStep reports whether the engine's failed operation belongs to the
// step in flight. The engine reports its last operation, which may be a sync
// of the spec before this step wrote its own (an earlier failed upgrade), and
// ReleaseStatus names no revision for it, only when it started: a failure
// counts once the operation started at or after the step did. Both times are
// kept to the second (metav1.Time), so the step start is truncated to it. A
// restored rollout does not know when its step started, and a restore resets
// the creation time to after it: any failure counts, since the step was
// written before the restore and the engine has had the time to sync it.
func (r *Rollout) failedSinceStep(st ports.ReleaseStatus) bool {
	started := r.status.StepStartedAt
	return started.IsZero() || !st.LastSyncAt.Before(started.Truncate(time.Second))
}

// finishSteps moves to validation or success once every step finished and the engine
// objects show each one made (stepsShown).
func (r *Rollout) finishSteps(env Environment) Outcome {
	if env.ValidationRequired {
		r.status.Phase = PhaseValidating
		r.status.ValidationRun = r.spec.Name + validationSuffix
		r.status.Message = ValidationMessage(r.spec.Name, r.status.ValidationRun)
		return Outcome{Status: r.status, Event: r.status.Message}
	}
	r.status.Phase, r.status.Message = PhaseSucceeded, "every step finished, validation disabled"
	return Outcome{Status: r.status, Event: "rollout " + r.spec.Name + " succeeded", Ended: true}
}
