package domain

import "strings"

// Phase is a rollout's phase; the last six are outcomes (RO-6) and end it.
type Phase string

const (
	// PhasePending means the rollout was created and its preconditions are being checked.
	PhasePending Phase = "Pending"
	// PhaseAwaitingApproval means the rollout needs an approval it does not have.
	PhaseAwaitingApproval Phase = "AwaitingApproval"
	// PhaseProgressing means steps are running.
	PhaseProgressing Phase = "Progressing"
	// PhaseAwaitingAcknowledgement means a manual step waits, before its apply, for an acknowledgement (RO-9).
	PhaseAwaitingAcknowledgement Phase = "AwaitingAcknowledgement"
	// PhaseValidating means AICR deployment validation runs (RO-10).
	PhaseValidating Phase = "Validating"
	// PhaseSucceeded is the outcome of a rollout whose steps (and validation) passed.
	PhaseSucceeded Phase = "Succeeded"
	// PhaseFailed is the outcome of a rollout whose step or validation failed.
	PhaseFailed Phase = "Failed"
	// PhaseExpired is the outcome of a rollout whose deadline or approval expired.
	PhaseExpired Phase = "Expired"
	// PhaseRevoked is the outcome of a rollout whose approval was revoked.
	PhaseRevoked Phase = "Revoked"
	// PhaseSuperseded is the outcome of a rollout whose target is no longer the runtime's target.
	PhaseSuperseded Phase = "Superseded"
	// PhaseOrphaned is the outcome of a rollout whose runtime is gone or has another UID.
	PhaseOrphaned Phase = "Orphaned"
)

// Terminal reports whether p is an outcome.
func (p Phase) Terminal() bool {
	switch p {
	case PhaseSucceeded, PhaseFailed, PhaseExpired, PhaseRevoked, PhaseSuperseded, PhaseOrphaned:
		return true
	case PhasePending, PhaseAwaitingApproval, PhaseProgressing, PhaseAwaitingAcknowledgement, PhaseValidating:
		return false
	}
	return false
}

// outcomeReason is the stall reason an outcome reports (RO-11), false for none: the one table
// from phases to reasons.
func outcomeReason(p Phase) (StallReason, bool) {
	switch p {
	case PhaseFailed:
		return StallRolloutFailed, true
	case PhaseExpired:
		return StallRolloutExpired, true
	case PhaseRevoked:
		return StallRolloutRevoked, true
	case PhasePending, PhaseAwaitingApproval, PhaseProgressing, PhaseAwaitingAcknowledgement,
		PhaseValidating, PhaseSucceeded, PhaseSuperseded, PhaseOrphaned:
		return "", false
	}
	return "", false
}

// terminalStall returns the stall an outcome reached in this call reports, nil for none.
func terminalStall(p Phase, name, msg string) *Stall {
	reason, ok := outcomeReason(p)
	if !ok {
		return nil
	}
	return stallf(reason, "rollout "+name+" "+strings.ToLower(string(p))+": "+msg)
}

// OutcomeStall returns the stall of a rollout read back with its outcome label and no Stalled
// condition (a restored rollout has none), nil for an outcome that reports none.
func OutcomeStall(outcome Phase, rollout string) *Stall {
	reason, ok := outcomeReason(outcome)
	if !ok {
		return nil
	}
	return stallf(reason, "rollout "+rollout+" "+string(outcome))
}
