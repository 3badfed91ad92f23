package domain

// ResolveStage is the next step of a resolution (RES-1): the closed set NextResolveStage
// chooses from.
type ResolveStage int

// The stages of a resolution, in the order a resolution from nothing runs them.
const (
	// ResolveCheckPlacement checks the placement's tolerations and node groups (RES-2, RES-3).
	ResolveCheckPlacement ResolveStage = iota
	// ResolveSnapshot takes (or reuses) the snapshot and checks the declared criteria against it.
	ResolveSnapshot
	// ResolveRecipe runs (or reuses) the recipe Job and checks the overrides against it.
	ResolveRecipe
	// ResolveRepairRecorded judges the plan already recorded for this bundle Job: its lost
	// values or recipe ConfigMaps are rebuilt, or the plan is resolved again.
	ResolveRepairRecorded
	// ResolveUpgradeCheck runs AICR upgrade-check from the active plan's recipe.
	ResolveUpgradeCheck
	// ResolveBundle runs the bundle Job and reads back the rendered bundle.
	ResolveBundle
	// ResolvePlanWrite builds the plan from the bundle, publishes its charts and writes it.
	ResolvePlanWrite
	// ResolveStillLost stalls a plan resolved again to the recorded digest whose parts are
	// still lost.
	ResolveStillLost
	// ResolveJobCleanup deletes the bundle and upgrade-check Jobs once the plan is recorded.
	ResolveJobCleanup
	// ResolveDone reports the written plan as the candidate.
	ResolveDone
	// resolveStageCount bounds the set: every stage is below it.
	resolveStageCount
)

// ResolveFacts are what a resolution has established so far in one reconcile, gathered by the
// resolver: each stage's result it holds (a kept result reused counts as held) and what
// stands recorded from earlier resolutions.
type ResolveFacts struct {
	// PlacementChecked: the placement's tolerations and node groups were accepted.
	PlacementChecked bool
	// SnapshotTaken: a snapshot that satisfies the declared criteria is at hand.
	SnapshotTaken bool
	// RecipeResolved: the recipe is at hand and the overrides are accepted against it.
	RecipeResolved bool
	// PlanRecorded: a plan is already recorded for the bundle Job these inputs name.
	PlanRecorded bool
	// RecordedJudged: that recorded plan was judged and must be resolved again.
	RecordedJudged bool
	// ActivePlan: the runtime has an active plan, so an upgrade-check compares against it.
	ActivePlan bool
	// UpgradeChecked: the upgrade-check ran, or there is no recipe to compare against.
	UpgradeChecked bool
	// BundleRendered: the rendered bundle is at hand.
	BundleRendered bool
	// PlanWritten: the plan built from the bundle is written.
	PlanWritten bool
	// WrittenIsRecorded: the written plan has the recorded plan's digest (it was resolved again).
	WrittenIsRecorded bool
	// StillLostChecked: a plan resolved again was checked for parts still lost.
	StillLostChecked bool
	// JobsCleaned: the bundle and upgrade-check Jobs are deleted.
	JobsCleaned bool
}

// NextResolveStage is the stage a resolution runs next given what it has established: each
// stage's input is the result of the ones before; a plan already recorded for the same inputs
// is judged before any Job runs for it; the upgrade-check runs only against an active plan;
// a plan resolved again to the digest it had is checked for parts still lost before it is
// reported.
func NextResolveStage(f ResolveFacts) ResolveStage {
	switch {
	case !f.PlacementChecked:
		return ResolveCheckPlacement
	case !f.SnapshotTaken:
		return ResolveSnapshot
	case !f.RecipeResolved:
		return ResolveRecipe
	case f.PlanRecorded && !f.RecordedJudged:
		return ResolveRepairRecorded
	case f.ActivePlan && !f.UpgradeChecked:
		return ResolveUpgradeCheck
	case !f.BundleRendered:
		return ResolveBundle
	case !f.PlanWritten:
		return ResolvePlanWrite
	case f.WrittenIsRecorded && !f.StillLostChecked:
		return ResolveStillLost
	case !f.JobsCleaned:
		return ResolveJobCleanup
	}
	return ResolveDone
}
