package domain

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// MissingAfterRestore returns the releases of the active plan that a restored rollout recorded
// as Unknown and that have no engine object now (RO-13). Such a release is never repaired from
// the active plan silently: the runtime either stalls MovedReleaseMissing (target differs from
// the active plan) or creates a reinstall rollout that needs a fresh approval.
func MissingAfterRestore(active *Plan, unknown map[string]bool, live []ports.ReleaseStatus) []ports.ReleaseRef {
	if active == nil || len(unknown) == 0 {
		return nil
	}
	present := make(map[ports.ReleaseRef]bool, len(live))
	for _, s := range live {
		present[s.Ref] = true
	}
	var missing []ports.ReleaseRef
	for _, r := range active.Releases {
		if unknown[r.ID] && !present[r.Ref()] {
			missing = append(missing, r.Ref())
		}
	}
	return missing
}

// MovedReleasesMissing is the stall of a runtime whose target differs from the active plan
// while releases of the active plan are missing after a restore (RO-13): no rollout toward the
// target starts, since it would move releases that are not there; selecting the active plan
// again reinstalls them with a fresh approval. It returns nil when nothing is missing.
func MovedReleasesMissing(activeDigest string, missing []ports.ReleaseRef) *Stall {
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = m.String()
	}
	return stallf(StallMovedReleaseMissing, fmt.Sprintf(
		"releases %s of the active plan %s were lost with a restore and have no engine object; "+
			"they are not repaired from the active plan: pin the active plan to reinstall them with a fresh approval, then select the target again",
		strings.Join(names, ", "), activeDigest))
}

// ReinstallTransition is the rollout from the active plan to itself that reinstalls missing
// releases (RO-13): one Install step per missing release, in the plan's dependency order. It
// always needs a fresh approval: it recreates what a restore lost, which a human confirms.
// rules mark its disruptive steps.
func ReinstallTransition(active *Plan, missing []ports.ReleaseRef, rules DisruptionRules) (Transition, error) {
	order, err := topoOrder(active.Releases)
	if err != nil {
		return Transition{}, err
	}
	wanted := make(map[ports.ReleaseRef]bool, len(missing))
	for _, m := range missing {
		wanted[m] = true
	}
	t := Transition{ApprovalRequired: true}
	for _, i := range order {
		if r := active.Releases[i]; wanted[r.Ref()] {
			t.Steps = append(t.Steps, Step{Release: r.Ref(), Component: r.Component, Operation: OpInstall})
		}
	}
	markDisruptive(t.Steps, active, active, rules)
	return t, nil
}
