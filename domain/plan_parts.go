package domain

import (
	"fmt"
	"strings"
)

// PlanPartKind names a ConfigMap a recorded plan references besides its own (PLAN-2, PLAN-3).
type PlanPartKind string

// The parts of a recorded plan.
const (
	// PartValues is the values ConfigMap of the plan's releases.
	PartValues PlanPartKind = "values"
	// PartRecipe is the recipe ConfigMap of the recipe as AICR resolved it.
	PartRecipe PlanPartKind = "recipe"
	// PartValidationRecipe is the recipe ConfigMap of the recipe as the bundle records it.
	PartValidationRecipe PlanPartKind = "validation recipe"
)

// PartState is what stands at the name of a part of a recorded plan.
type PartState int

// The states of a part.
const (
	// PartIntact is a ConfigMap whose content has the digest the plan records.
	PartIntact PartState = iota
	// PartLost is no ConfigMap at all: it was deleted.
	PartLost
	// PartForeign is a ConfigMap whose content does not have the digest the plan records.
	PartForeign
)

// PlanPart is one part of a recorded plan as the operator found it and, when it is lost, what
// a source the operator trusts gives for it.
type PlanPart struct {
	Kind PlanPartKind
	// Name is the ConfigMap's name.
	Name  string
	State PartState
	// Recorded is the digest the plan records for the part (for values: the plan's digest).
	Recorded string
	// Rebuilt is the digest of the content rebuilt from Source ("" when none was rebuilt); for
	// values, the digest of the plan with the rebuilt values (RestoreValues).
	Rebuilt string
	// Source names where Rebuilt comes from or, when nothing was rebuilt, why.
	Source string
}

// PartsAction is what to do about the parts of a recorded plan.
type PartsAction int

// The actions DecidePlanParts returns.
const (
	// PartsIntact: every part is there as the plan records it; the plan is used as it is.
	PartsIntact PartsAction = iota
	// PartsRebuild: every lost part was rebuilt with the digest the plan records; write them.
	PartsRebuild
	// PartsResolveAgain: a lost part cannot be proven; resolve the plan again, writing nothing
	// rebuilt.
	PartsResolveAgain
	// PartsRefused: a part holds content the plan does not record; the plan is not used.
	PartsRefused
)

// PartsDecision is DecidePlanParts' answer.
type PartsDecision struct {
	Action PartsAction
	// Rebuild are the parts to write (PartsRebuild).
	Rebuild []PlanPart
	// Stall stops the resolution (PartsRefused).
	Stall *Stall
	// Message says what was found and what happens, for an Event ("" for PartsIntact).
	Message string
}

// DecidePlanParts decides what happens to a recorded plan whose parts were read back
// (PLAN-5, PLAN-6). A part whose ConfigMap holds other content than the plan records is never
// used nor replaced: Conflict, until someone deletes it. Lost parts are rebuilt only when
// every one of them was rebuilt with exactly the digest the plan records; when one cannot be
// proven so, nothing is written and the plan is resolved again: the operator never trusts
// content it cannot prove and never writes half a repair.
func DecidePlanParts(plan string, parts []PlanPart) PartsDecision {
	var lost, unproven []PlanPart
	for _, p := range parts {
		switch p.State {
		case PartForeign:
			return PartsDecision{Action: PartsRefused, Stall: stallf(StallConflict, fmt.Sprintf(
				"%s ConfigMap %s of plan %s holds other content than the plan records: the operator neither uses nor replaces it; "+
					"delete it and the operator rebuilds it", p.Kind, p.Name, plan))}
		case PartLost:
			lost = append(lost, p)
			if p.Rebuilt == "" || p.Rebuilt != p.Recorded {
				unproven = append(unproven, p)
			}
		case PartIntact:
		}
	}
	switch {
	case len(lost) == 0:
		return PartsDecision{Action: PartsIntact}
	case len(unproven) == 0:
		var what []string
		for _, p := range lost {
			what = append(what, fmt.Sprintf("%s ConfigMap %s from %s", p.Kind, p.Name, p.Source))
		}
		return PartsDecision{Action: PartsRebuild, Rebuild: lost, Message: fmt.Sprintf(
			"plan %s: rebuilt its lost %s, checked against the digests the plan records", plan, strings.Join(what, ", "))}
	}
	var what []string
	for _, p := range unproven {
		what = append(what, fmt.Sprintf("%s ConfigMap %s (%s)", p.Kind, p.Name, p.Source))
	}
	return PartsDecision{Action: PartsResolveAgain, Message: fmt.Sprintf(
		"plan %s: its lost %s cannot be rebuilt from a source the operator can prove: resolving it again", plan, strings.Join(what, ", "))}
}

// StillLost is the stall of a plan resolved again whose parts are still lost: the render gave
// the same plan digest but the recorded plan names parts the new render did not write (its
// recipe changed without changing a release). Values stall PlanUnreadable, recipes
// PlanWithoutRecipe; nil when no part is lost.
func StillLost(plan, planConfigMap string, parts []PlanPart) *Stall {
	for _, p := range parts {
		if p.State != PartLost {
			continue
		}
		reason := StallPlanWithoutRecipe
		if p.Kind == PartValues {
			reason = StallPlanUnreadable
		}
		return stallf(reason, fmt.Sprintf("plan %s was resolved again and its %s ConfigMap %s is still not found: "+
			"delete its plan ConfigMap %s and the operator resolves it anew", plan, p.Kind, p.Name, planConfigMap))
	}
	return nil
}

// RestoreValues returns releases, the releases of the plan of digest as it records them, with
// the values found for them (by release ID) and the digest of that plan: Values are set only
// when every release's values have the valuesDigest the plan records and the plan with them
// has digest. Otherwise it returns nil and why, in a few words.
func RestoreValues(digest string, releases []Release, found map[string]map[string]any) ([]Release, string) {
	out := make([]Release, len(releases))
	for i, r := range releases {
		values, ok := found[r.ID]
		if !ok {
			return nil, "it has no release " + r.ID
		}
		d, err := Digest(values)
		if err != nil || d != r.ValuesDigest {
			return nil, fmt.Sprintf("the values of release %s have digest %s, the plan records %s", r.ID, d, r.ValuesDigest)
		}
		r.Values = values
		out[i] = r
	}
	got, err := DesiredStateDigest(out)
	if err != nil || got != digest {
		return nil, fmt.Sprintf("the plan with them has digest %s, not %s", got, digest)
	}
	return out, ""
}
