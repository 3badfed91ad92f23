package domain

import (
	"fmt"
	"strconv"
	"time"
)

// approvalValid reports, from the spec alone, whether the rollout may make a mutation at now:
// it needs no approval, or its approval is given, not revoked and not expired (RO-8). The
// status never grants it: a phase past AwaitingApproval is what the status claims, not an
// approval.
func (r *Rollout) approvalValid(now time.Time) bool {
	a := r.spec.Approval
	return !r.spec.ApprovalRequired ||
		a.Approved() && !a.Revoked() && (a.ExpiresAt.IsZero() || now.Before(a.ExpiresAt))
}

// pastApproval reports whether p is a phase a rollout reaches only after its approval.
func pastApproval(p Phase) bool {
	return p == PhaseProgressing || p == PhaseAwaitingAcknowledgement || p == PhaseValidating
}

// unapprovedClaim puts a rollout whose status claims a phase past approval while its spec
// requires an approval nobody gave back to AwaitingApproval, before any port is used: the
// approval is judged from spec.approval on every Advance, never from status.phase. From there
// the rollout waits, or ends Expired at its deadline or Superseded as any rollout awaiting
// approval does. A revoked or expired approval is not handled here: RO-8 lets the step in
// flight finish when the engine objects show this rollout made it (progress, stepsShown).
func (r *Rollout) unapprovedClaim(env Environment, now time.Time) (Outcome, bool) {
	if !pastApproval(r.status.Phase) || !r.spec.ApprovalRequired || r.spec.Approval.Approved() {
		return Outcome{}, false
	}
	claimed := r.status.Phase
	r.status = RolloutStatus{Phase: PhaseAwaitingApproval}
	out := r.awaitingApproval(env, now)
	if out.Event == "" {
		out.Event = fmt.Sprintf("rollout %s: its status claimed %s without the approval its spec requires: back to %s",
			r.spec.Name, claimed, PhaseAwaitingApproval)
	}
	return out, true
}

// normalizeClaims rewrites what the status claims but the spec does not back, so no decision
// rests on it: Pending and AwaitingApproval are before the first step (a status claiming a
// step further is at step 0, from where made steps are judged again without a write);
// Validating short of the last step is Progressing at that step; AwaitingAcknowledgement of a
// step that does not pause for one (or past the last step) is Progressing, which judges the
// step; a validation run this rollout does not name is its first run.
func (r *Rollout) normalizeClaims() {
	st := &r.status
	switch st.Phase {
	case PhasePending, PhaseAwaitingApproval:
		st.Step, st.StepStartedAt, st.ValidationRun = 0, time.Time{}, ""
	case PhaseValidating:
		if st.Step != len(r.spec.Steps) {
			st.Phase, st.ValidationRun = PhaseProgressing, ""
		} else if !r.ownValidationRun(st.ValidationRun) {
			st.ValidationRun = r.spec.Name + validationSuffix
		}
	case PhaseAwaitingAcknowledgement:
		if st.Step == len(r.spec.Steps) || !r.spec.Steps[st.Step].AcknowledgeBeforeApply {
			st.Phase = PhaseProgressing
		}
	case PhaseProgressing, PhaseSucceeded, PhaseFailed, PhaseExpired, PhaseRevoked, PhaseSuperseded, PhaseOrphaned:
	}
}

// ownValidationRun reports whether run is one of this rollout's validation runs:
// <rollout>-validate or <rollout>-validate-<n>, 2 <= n <= MaxValidationAttempts.
func (r *Rollout) ownValidationRun(run string) bool {
	base := r.spec.Name + validationSuffix
	if run == base {
		return true
	}
	for n := 2; n <= MaxValidationAttempts; n++ {
		if run == base+"-"+strconv.Itoa(n) {
			return true
		}
	}
	return false
}
