package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// resolveStageCases has one case per ResolveStage: the facts that lead to it.
var resolveStageCases = map[ResolveStage]ResolveFacts{
	ResolveCheckPlacement: {},
	ResolveSnapshot:       {PlacementChecked: true},
	ResolveRecipe:         {PlacementChecked: true, SnapshotTaken: true},
	ResolveRepairRecorded: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, PlanRecorded: true, ActivePlan: true},
	ResolveUpgradeCheck: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, PlanRecorded: true,
		RecordedJudged: true, ActivePlan: true},
	ResolveBundle:    {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, ActivePlan: true, UpgradeChecked: true},
	ResolvePlanWrite: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, BundleRendered: true},
	ResolveStillLost: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, PlanRecorded: true, RecordedJudged: true,
		BundleRendered: true, PlanWritten: true, WrittenIsRecorded: true},
	ResolveJobCleanup: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, PlanRecorded: true, RecordedJudged: true,
		BundleRendered: true, PlanWritten: true, WrittenIsRecorded: true, StillLostChecked: true},
	ResolveDone: {PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true, BundleRendered: true, PlanWritten: true,
		JobsCleaned: true},
}

// TestNextResolveStage_RES1: each stage runs once the ones whose result it needs are done; a
// recorded plan is judged before the upgrade-check, which runs only against an active plan; a
// plan resolved again to its recorded digest is checked for lost parts before its Jobs go.
func TestNextResolveStage_RES1(t *testing.T) {
	t.Parallel()
	for want, facts := range resolveStageCases {
		assert.Equal(t, want, NextResolveStage(facts), "facts %+v", facts)
	}
}

// TestNextResolveStage_EveryStageHasACase fails when a ResolveStage has no case above, so a
// stage added to the set is decided and tested before it is used.
func TestNextResolveStage_EveryStageHasACase(t *testing.T) {
	t.Parallel()
	for s := ResolveStage(0); s < resolveStageCount; s++ {
		_, ok := resolveStageCases[s]
		assert.True(t, ok, "ResolveStage %d has no case in resolveStageCases", s)
	}
}

// TestNextResolveStage_Skips: with no active plan the upgrade-check is skipped, and a plan
// written with another digest than the recorded one goes straight to the Job cleanup.
func TestNextResolveStage_Skips(t *testing.T) {
	t.Parallel()
	done := ResolveFacts{PlacementChecked: true, SnapshotTaken: true, RecipeResolved: true}
	assert.Equal(t, ResolveBundle, NextResolveStage(done))
	done.BundleRendered, done.PlanWritten = true, true
	assert.Equal(t, ResolveJobCleanup, NextResolveStage(done))
}
