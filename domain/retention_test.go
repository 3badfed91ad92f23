package domain_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
)

func TestPlansToDelete(t *testing.T) {
	t.Parallel()
	var plans []domain.PlanRecord
	for i := range 9 {
		plans = append(plans, domain.PlanRecord{Name: fmt.Sprintf("p%d", i), CreatedAt: t0.Add(time.Duration(i) * time.Hour)})
	}
	plans[0].Active, plans[1].Pinned, plans[8].Candidate = true, true, true
	// Others: p2..p7 (6 plans); keep the 5 newest (p3..p7), delete p2.
	assert.Equal(t, []string{"p2"}, domain.PlansToDelete(plans))
}

func TestRolloutsToDelete(t *testing.T) {
	t.Parallel()
	var rs []domain.RolloutRecord
	rs = append(rs, domain.RolloutRecord{Name: "old-success", RuntimeUID: uid, CreatedAt: t0, Outcome: domain.PhaseSucceeded, Sealed: true})
	for i := 1; i <= 12; i++ {
		rs = append(rs, domain.RolloutRecord{Name: fmt.Sprintf("f%02d", i), RuntimeUID: uid,
			CreatedAt: t0.Add(time.Duration(i) * time.Hour), Outcome: domain.PhaseFailed})
	}
	rs = append(rs, domain.RolloutRecord{Name: "running", RuntimeUID: uid, CreatedAt: t0.Add(-time.Hour)})
	rs = append(rs, domain.RolloutRecord{Name: "other-uid", RuntimeUID: "x", CreatedAt: t0, Outcome: domain.PhaseFailed})
	// Terminal by age: f12..f01, old-success. The newest Succeeded is kept although it is the oldest;
	// of the failed ones the ten most recent terminal (f12..f03) are kept.
	assert.ElementsMatch(t, []string{"f01", "f02"}, domain.RolloutsToDelete(rs))
}

// TestRolloutsToDelete_SequenceAfterARestore: a restore recreates rollouts in any order, so
// their creation times say nothing; the sequence does, and the ten most recent terminal
// rollouts are those with the highest sequences (RET-2, RO-13).
func TestRolloutsToDelete_SequenceAfterARestore(t *testing.T) {
	t.Parallel()
	var rs []domain.RolloutRecord
	for i := 1; i <= 12; i++ {
		rs = append(rs, domain.RolloutRecord{Name: fmt.Sprintf("f%02d", i), RuntimeUID: uid, Sequence: i,
			CreatedAt: t0.Add(-time.Duration(i) * time.Second), Outcome: domain.PhaseFailed})
	}
	rs = append(rs, domain.RolloutRecord{Name: "success", RuntimeUID: uid, Sequence: 13, CreatedAt: t0.Add(-time.Hour),
		Outcome: domain.PhaseSucceeded, Sealed: true})
	// success and f12..f04 are the ten most recent terminal rollouts by sequence, although
	// restored first.
	assert.ElementsMatch(t, []string{"f01", "f02", "f03"}, domain.RolloutsToDelete(rs))
}

func TestJobResultsToDelete(t *testing.T) {
	t.Parallel()
	results := []domain.JobResult{
		{Name: "snap-old", Snapshot: true, Succeeded: true, CreatedAt: t0},
		{Name: "snap-new", Snapshot: true, Succeeded: true, CreatedAt: t0.Add(time.Hour)},
		{Name: "snap-failed", Snapshot: true, CreatedAt: t0.Add(2 * time.Hour)},
		{Name: "recipe-a", CreatedAt: t0},
		{Name: "recipe-b", CreatedAt: t0},
	}
	got := domain.JobResultsToDelete(results, map[string]bool{"recipe-a": true})
	assert.ElementsMatch(t, []string{"snap-old", "snap-failed", "recipe-b"}, got)
}

func TestPlansToDeleteKeepsInUsePlansRET1(t *testing.T) {
	t.Parallel()
	var plans []domain.PlanRecord
	for i := range 7 {
		plans = append(plans, domain.PlanRecord{Name: fmt.Sprintf("p%d", i), CreatedAt: t0.Add(time.Duration(i) * time.Hour)})
	}
	plans[0].InUse = true
	// Others: p1..p6; the five newest (p2..p6) stay, and p0 is read by a rollout in progress.
	assert.Equal(t, []string{"p1"}, domain.PlansToDelete(plans))
}

func TestRolloutsToDeleteKeepsTheActiveRolloutRET2(t *testing.T) {
	t.Parallel()
	// Two Succeeded rollouts created in the same second: the runtime derives its active plan
	// from a-0 (its chain order), retention by name would keep a-1 only.
	rs := []domain.RolloutRecord{
		{Name: "a-0", RuntimeUID: uid, CreatedAt: t0, Outcome: domain.PhaseSucceeded, Sealed: true, Active: true},
		{Name: "a-1", RuntimeUID: uid, CreatedAt: t0, Outcome: domain.PhaseSucceeded, Sealed: true},
	}
	for i := 1; i <= 10; i++ {
		rs = append(rs, domain.RolloutRecord{Name: fmt.Sprintf("f%02d", i), RuntimeUID: uid,
			CreatedAt: t0.Add(time.Duration(i) * time.Hour), Outcome: domain.PhaseFailed})
	}
	assert.Empty(t, domain.RolloutsToDelete(rs))
}

// TestRolloutsToDelete_AnUnsealedSuccessDoesNotCount: a Succeeded label without the operator's
// seal (written while the approval binding was missing) on the newest rollout does not displace
// the sealed success: that one is kept whatever its age, and the unsealed one counts as one of
// the ten most recent terminal rollouts.
func TestRolloutsToDelete_AnUnsealedSuccessDoesNotCount(t *testing.T) {
	t.Parallel()
	rs := []domain.RolloutRecord{{Name: "sealed", RuntimeUID: uid, Sequence: 1, Outcome: domain.PhaseSucceeded, Sealed: true}}
	for i := 2; i <= 11; i++ {
		rs = append(rs, domain.RolloutRecord{Name: fmt.Sprintf("f%02d", i), RuntimeUID: uid, Sequence: i, Outcome: domain.PhaseFailed})
	}
	rs = append(rs, domain.RolloutRecord{Name: "forged", RuntimeUID: uid, Sequence: 12, Outcome: domain.PhaseSucceeded})
	assert.Equal(t, []string{"f02"}, domain.RolloutsToDelete(rs))
}
