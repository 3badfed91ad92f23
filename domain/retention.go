package domain

import (
	"sort"
	"time"
)

// Retention limits (RET-1, RET-2).
const (
	// KeepSupersededPlans is how many superseded plans are kept besides active, candidate and pinned ones.
	KeepSupersededPlans = 5
	// KeepTerminalRollouts is how many terminal rollouts are kept per runtime UID.
	KeepTerminalRollouts = 10
)

// PlanRecord describes one stored plan for retention.
type PlanRecord struct {
	Name      string
	Digest    string
	CreatedAt time.Time
	Active    bool
	Candidate bool
	Pinned    bool
	// InUse reports a plan something still reads besides those three: the runtime's target,
	// a plan of a rollout without an outcome, the plan of the resolution in progress.
	InUse bool
}

// PlansToDelete applies RET-1: keep active, candidate, pinned and in-use plans plus
// the KeepSupersededPlans most recent others; return the names of the rest.
// Their recipe and values ConfigMaps go with them, except those a kept plan
// also references: both are content-addressed, so plans with equal recipes or
// values share them.
func PlansToDelete(plans []PlanRecord) []string {
	var others []PlanRecord
	for _, p := range plans {
		if !p.Active && !p.Candidate && !p.Pinned && !p.InUse {
			others = append(others, p)
		}
	}
	sort.SliceStable(others, func(i, j int) bool {
		return newer(others[i].CreatedAt, others[i].Name, others[j].CreatedAt, others[j].Name)
	})
	var out []string
	for i, p := range others {
		if i >= KeepSupersededPlans {
			out = append(out, p.Name)
		}
	}
	return out
}

// RolloutRecord describes one rollout for retention.
type RolloutRecord struct {
	Name       string
	RuntimeUID string
	// Sequence is the rollout's place among its runtime's rollouts (0: unknown, older than
	// any known place); unlike CreatedAt it survives a restore (RO-13).
	Sequence  int
	CreatedAt time.Time
	// Outcome is the outcome label ("" while the rollout has none).
	Outcome Phase
	// Sealed reports that the outcome label carries the operator's seal (SealedSuccess): a
	// Succeeded label counts as a success only then, and otherwise as a terminal rollout that
	// did not succeed, since another identity can write the label while the approval policy's
	// binding is missing.
	Sealed bool
	// Active reports the rollout the runtime derives its active plan from (RO-13), kept
	// whatever its age: it is the newest Succeeded one in the runtime's own order, which
	// may break a tie of CreatedAt otherwise than by name.
	Active bool
}

// RolloutsToDelete applies RET-2 per runtime UID: keep the newest sealed Succeeded
// rollout, every rollout without an outcome, the active one and the
// KeepTerminalRollouts most recent terminal ones, newest by Sequence, then
// CreatedAt; return the names of the rest.
func RolloutsToDelete(rollouts []RolloutRecord) []string {
	byUID := map[string][]RolloutRecord{}
	var uids []string
	for _, r := range rollouts {
		if _, ok := byUID[r.RuntimeUID]; !ok {
			uids = append(uids, r.RuntimeUID)
		}
		byUID[r.RuntimeUID] = append(byUID[r.RuntimeUID], r)
	}
	var out []string
	for _, uid := range uids {
		rs := byUID[uid]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].Sequence != rs[j].Sequence {
				return rs[i].Sequence > rs[j].Sequence
			}
			return newer(rs[i].CreatedAt, rs[i].Name, rs[j].CreatedAt, rs[j].Name)
		})
		keptSucceeded, terminal := false, 0
		for _, r := range rs {
			if r.Outcome == "" {
				continue
			}
			terminal++
			if r.Outcome == PhaseSucceeded && r.Sealed && !keptSucceeded {
				keptSucceeded = true
				continue
			}
			if terminal > KeepTerminalRollouts && !r.Active {
				out = append(out, r.Name)
			}
		}
	}
	return out
}

// JobResult describes one kept AICR result copy (snapshot, recipe, assessment report).
type JobResult struct {
	Name      string
	Snapshot  bool
	Succeeded bool
	CreatedAt time.Time
}

// JobResultsToDelete applies RET-3: keep result copies referenced by a
// retained plan or rollout (referenced) plus the newest successful snapshot.
func JobResultsToDelete(results []JobResult, referenced map[string]bool) []string {
	newest := ""
	var newestAt time.Time
	for _, r := range results {
		if r.Snapshot && r.Succeeded && (newest == "" || newer(r.CreatedAt, r.Name, newestAt, newest)) {
			newest, newestAt = r.Name, r.CreatedAt
		}
	}
	var out []string
	for _, r := range results {
		if !referenced[r.Name] && r.Name != newest {
			out = append(out, r.Name)
		}
	}
	return out
}

func newer(a time.Time, an string, b time.Time, bn string) bool {
	if !a.Equal(b) {
		return a.After(b)
	}
	return an > bn
}
