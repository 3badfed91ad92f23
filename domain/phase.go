package domain

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

// terminalStall returns the stall an outcome reports (RO-11), nil for none.
func terminalStall(p Phase, name, msg string) *Stall {
	switch p {
	case PhaseFailed:
		return stallf(StallRolloutFailed, "rollout "+name+" failed: "+msg)
	case PhaseExpired:
		return stallf(StallRolloutExpired, "rollout "+name+" expired: "+msg)
	case PhaseRevoked:
		return stallf(StallRolloutRevoked, "rollout "+name+" revoked: "+msg)
	case PhasePending, PhaseAwaitingApproval, PhaseProgressing, PhaseAwaitingAcknowledgement,
		PhaseValidating, PhaseSucceeded, PhaseSuperseded, PhaseOrphaned:
		return nil
	}
	return nil
}
