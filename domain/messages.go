package domain

import (
	"fmt"
	"strings"
)

// StepMessage is the Ready message while a step runs (CR-8), for example
// "rollout <name>: step 9/18 gpu-operator (Upgrade)". index is 0-based.
func StepMessage(rollout string, index, total int, s Step) string {
	return fmt.Sprintf("rollout %s: step %d/%d %s (%s)", rollout, index+1, total, s.Release.ID, s.Operation)
}

// AwaitingApprovalMessage is the Ready message of a rollout awaiting approval (CR-8).
func AwaitingApprovalMessage(rollout string) string {
	return "rollout " + rollout + " awaiting approval"
}

// ValidationMessage is the Ready message while deployment validation runs (CR-8).
func ValidationMessage(rollout, run string) string {
	return "rollout " + rollout + ": deployment validation run " + run
}

// StalledMessage is the Ready message of a stalled rollout (CR-8).
func StalledMessage(rollout, message string) string {
	return "rollout " + rollout + " stalled: " + message
}

// NotRolledOutMessage is the Ready message before the target's rollout exists (CR-8).
func NotRolledOutMessage(targetPlanDigest string) string {
	return "target plan " + targetPlanDigest + " is not rolled out yet"
}

// MaxMessage is the longest condition, Event or annotation message the operator writes, the
// CRDs' bound of a condition message (CR-4, RO-5).
const MaxMessage = 1024

// Truncate trims s and cuts it to at most MaxMessage bytes, ending in "..." when cut.
func Truncate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= MaxMessage {
		return s
	}
	return s[:MaxMessage-3] + "..."
}
