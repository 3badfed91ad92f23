package domain

import "github.com/NVIDIA/aicr/ports"

// SealedOutcome is what the operator's seal of a rollout's end covers: the outcome it labelled
// the rollout with and the message recorded with it, so neither can be changed, nor set by
// another identity, without the seal failing.
func SealedOutcome(outcome Phase, message string) []byte {
	return []byte(string(outcome) + "\n" + message)
}

// ConfirmSucceeded judges again a rollout labelled Succeeded whose seal does not verify: its
// success is redone from the engine objects, which must rebuild its target plan exactly
// (RebuildPlan: every release of the plan live as the plan records it, for runtimeUID). Nil
// when they do, and the caller seals the outcome; otherwise OutcomeUnverified.
func ConfirmSucceeded(rollout, runtimeUID, target string, specs []ports.ReleaseSpec) *Stall {
	if _, stall := RebuildPlan(runtimeUID, target, specs); stall != nil {
		return OutcomeUnverified(rollout, stall.Message())
	}
	return nil
}
