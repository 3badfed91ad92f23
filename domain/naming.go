package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// TransitionID returns the transition part of a rollout name (RO-1): the
// first 16 hex characters of SHA-256 over runtimeUID, fromPlanDigest and
// toPlanDigest, each terminated by a NUL byte so no two triples collide by
// concatenation. fromPlanDigest is empty for an initial install.
func TransitionID(runtimeUID, fromPlanDigest, toPlanDigest string) string {
	h := sha256.New()
	for _, s := range []string{runtimeUID, fromPlanDigest, toPlanDigest} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// RolloutName returns "rollout-<transition>-<n>".
func RolloutName(transition string, n int) string {
	return "rollout-" + transition + "-" + strconv.Itoa(n)
}

// ListedRollout is what the rollout-creation list (uncached reader) reports
// about one existing rollout.
type ListedRollout struct {
	Name       string
	RuntimeUID string
	// Transition is the value of the rollout's transition label.
	Transition string
	// Terminal reports that the rollout carries an outcome label.
	Terminal bool
}

// NextRollout applies RO-1 to the listed rollouts. Only rollouts of
// runtimeUID count. If one of them is not terminal it is the rollout in
// progress: its name is returned with create false. Otherwise the new name is
// rollout-<transition>-<n> with n = 1 + the highest suffix among the listed
// rollouts carrying that transition label, and create is true.
func NextRollout(runtimeUID, fromPlanDigest, toPlanDigest string, listed []ListedRollout) (name string, create bool) {
	transition := TransitionID(runtimeUID, fromPlanDigest, toPlanDigest)
	highest := 0
	for _, r := range listed {
		if r.RuntimeUID != runtimeUID {
			continue
		}
		if !r.Terminal {
			return r.Name, false
		}
		if r.Transition != transition {
			continue
		}
		if n, ok := rolloutSuffix(r.Name, transition); ok && n > highest {
			highest = n
		}
	}
	return RolloutName(transition, highest+1), true
}

func rolloutSuffix(name, transition string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "rollout-"+transition+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}
