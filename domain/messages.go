package domain

import (
	"fmt"
	"strings"
	"time"
)

// StepMessage is the Ready message while a step runs (CR-8), for example
// "rollout <name>: step 9/18 gpu-operator (Upgrade)". index is 0-based.
func StepMessage(rollout string, index, total int, s Step) string {
	return fmt.Sprintf("rollout %s: step %d/%d %s (%s)", rollout, index+1, total, s.Release.ID, s.Operation)
}

// StepWaitingMessage is the rollout's message while step index waits for the engine: what it
// waits for (object, as the engine names it; "" names the release's engine object), since
// when, and the step timeout that bounds the wait, with the time it runs out. It stays the
// same while the wait goes on, so a long wait costs no status write.
func StepWaitingMessage(rollout string, index, total int, s Step, object string, since time.Time, timeout time.Duration) string {
	if object == "" {
		object = "the engine object of " + s.Release.String()
	}
	what := "to report the step's revision synced and healthy"
	if s.Operation == OpRemove {
		what = "to be deleted"
	}
	return fmt.Sprintf("%s: waiting since %s for %s %s (step timeout %s, fails at %s)",
		StepMessage(rollout, index, total, s), since.UTC().Format(time.RFC3339), object, what, timeout,
		since.Add(timeout).UTC().Format(time.RFC3339))
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
