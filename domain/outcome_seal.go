package domain

import (
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// SealedOutcome is what the operator's seal of a rollout's end covers: the outcome it labelled
// the rollout with and the message recorded with it, so neither can be changed, nor set by
// another identity, without the seal failing.
func SealedOutcome(outcome Phase, message string) []byte {
	return []byte(string(outcome) + "\n" + message)
}

// SealedSuccess reports whether a rollout labelled outcome with message is a success under the
// operator's seal over them (SealedOutcome) on the rollout subject. A reader that counts
// successes from the label alone, without judging them again from the engine objects
// (retention), counts only these: another identity can write the label while the approval
// policy's binding is missing.
func SealedSuccess(s ports.Sealer, subject ports.SealSubject, outcome Phase, message, seal string) bool {
	return outcome == PhaseSucceeded && s.Verify(subject, SealedOutcome(outcome, message), seal) == nil
}

// ConfirmSucceeded judges again a rollout labelled Succeeded whose seal does not verify (its
// label predates the seal key, the rollout was restored from a backup under a new UID, or
// another identity wrote it): its success is redone from the engine objects. It is confirmed
// when the runtime has engine objects and every one records target as its plan, as the steps of
// a rollout that ended write them; releases the engine lost are left to MissingAfterRestore
// (RO-13). An engine still at another plan, or partly at it, stalls OutcomeUnverified.
func ConfirmSucceeded(rollout, runtimeUID, target string, specs []ports.ReleaseSpec) *Stall {
	n := 0
	for _, s := range specs {
		if s.Owner.RuntimeUID != runtimeUID {
			continue
		}
		if s.Owner.PlanDigest != target {
			return OutcomeUnverified(rollout, fmt.Sprintf("engine object %s records plan %s, not its target %s",
				s.Ref, s.Owner.PlanDigest, target))
		}
		n++
	}
	if n == 0 {
		return OutcomeUnverified(rollout, fmt.Sprintf("no engine object of runtime %s records its target %s", runtimeUID, target))
	}
	return nil
}
