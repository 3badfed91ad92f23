package resolver

import (
	"context"
	"fmt"
	"io/fs"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// resolution is what one reconcile's resolution holds so far: each stage's result, read by
// the stages after it and by the facts the domain decides the next stage from.
type resolution struct {
	cr               *aicrv1alpha1.ClusterRuntime
	placementChecked bool
	// snapshotTaken says snapshot, the result of Job snapshotJob, satisfies the declared criteria.
	snapshotTaken bool
	snapshotJob   string
	snapshot      []byte
	// recipeResolved says recipe, the result of Job recipeJob, lists what the overrides need.
	recipeResolved bool
	recipeJob      string
	recipe         []byte
	// unlisted are the override components the recipe does not list (RES-3).
	unlisted []string
	// bundleJob is the bundle Job's name, renderFlags its AICR render flags; both are known
	// with the recipe.
	bundleJob   string
	renderFlags []string
	// recordedLooked says the plan recorded for bundleJob was looked up; recorded is its
	// digest ("" = none).
	recordedLooked bool
	recorded       string
	recordedJudged bool
	upgradeChecked bool
	upgrade        upgradeReport
	// bundleRendered says bundle is the rendered bundle, bundleRef its registry reference.
	bundleRendered bool
	bundle         fs.FS
	bundleRef      string
	// plan is the written plan (nil: not yet).
	plan             *domain.Plan
	stillLostChecked bool
	jobsCleaned      bool
}

// resolve runs the resolution as far as it gets in one reconcile: it gathers what the
// resolution holds, asks the domain which stage runs next (domain.NextResolveStage) and runs
// it, until a stage reports an outcome (a Job running, a stall, a transient failure, or the
// candidate plan). Once a snapshot is taken the outcome handles the resolve request (CR-11).
func (r *Reconciler) resolve(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) *outcome {
	run := &resolution{cr: cr}
	last := domain.ResolveStage(-1)
	for {
		facts, out := r.gatherFacts(ctx, run)
		if out == nil {
			next := domain.NextResolveStage(facts)
			if next == last {
				out = transient(fmt.Errorf("resolve stage %d ran without establishing its result", next))
			} else {
				last, out = next, r.runResolveStage(ctx, run, next)
			}
		}
		if out != nil {
			if run.snapshotTaken {
				out.handled = cr.Annotations[aicrv1alpha1.AnnotationResolveRequestedAt]
			}
			return out
		}
	}
}

// gatherFacts states what run holds for the domain, looking up the plan recorded for the
// bundle Job once the recipe names it.
func (r *Reconciler) gatherFacts(ctx context.Context, run *resolution) (domain.ResolveFacts, *outcome) {
	if run.recipeResolved && !run.recordedLooked {
		recorded, err := r.recordedPlan(ctx, run.cr, run.bundleJob)
		if err != nil {
			return domain.ResolveFacts{}, transient(err)
		}
		run.recorded, run.recordedLooked = recorded, true
	}
	return domain.ResolveFacts{
		PlacementChecked:  run.placementChecked,
		SnapshotTaken:     run.snapshotTaken,
		RecipeResolved:    run.recipeResolved,
		PlanRecorded:      run.recorded != "",
		RecordedJudged:    run.recordedJudged,
		ActivePlan:        run.cr.Status.ActivePlanDigest != "",
		UpgradeChecked:    run.upgradeChecked,
		BundleRendered:    run.bundleRendered,
		PlanWritten:       run.plan != nil,
		WrittenIsRecorded: run.plan != nil && run.plan.Digest == run.recorded,
		StillLostChecked:  run.stillLostChecked,
		JobsCleaned:       run.jobsCleaned,
	}, nil
}

// runResolveStage runs stage: nil when it established its result in run, else the outcome
// to report.
func (r *Reconciler) runResolveStage(ctx context.Context, run *resolution, stage domain.ResolveStage) *outcome {
	switch stage {
	case domain.ResolveCheckPlacement:
		return r.checkPlacement(ctx, run)
	case domain.ResolveSnapshot:
		return r.snapshotStage(ctx, run)
	case domain.ResolveRecipe:
		return r.recipeStage(ctx, run)
	case domain.ResolveRepairRecorded:
		return r.repairRecorded(ctx, run)
	case domain.ResolveUpgradeCheck:
		return r.upgradeCheck(ctx, run)
	case domain.ResolveBundle:
		return r.bundleStage(ctx, run)
	case domain.ResolvePlanWrite:
		return r.writePlan(ctx, run)
	case domain.ResolveStillLost:
		return r.stillLost(ctx, run)
	case domain.ResolveJobCleanup:
		return r.cleanupJobs(ctx, run)
	case domain.ResolveDone:
		return resolvedTo(run.plan.Digest)
	}
	return transient(fmt.Errorf("unknown resolve stage %d", stage))
}

// release is the AICR release every Job name and kept result is keyed by.
func (r *Reconciler) release() shared.Release {
	return shared.Release{Version: r.Config.AICRVersion, Image: r.Config.Image}
}
