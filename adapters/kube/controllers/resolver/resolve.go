package resolver

import (
	"context"
	"fmt"
	"io/fs"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/domain"
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
	res := &resolution{cr: cr}
	last := domain.ResolveStage(-1)
	for {
		facts, out := r.gatherFacts(ctx, res)
		if out == nil {
			next := domain.NextResolveStage(facts)
			if next == last {
				out = transient(fmt.Errorf("resolve stage %d ran without establishing its result", next))
			} else {
				last, out = next, r.runResolveStage(ctx, res, next)
			}
		}
		if out != nil {
			if res.snapshotTaken {
				out.handled = cr.Annotations[aicrv1alpha1.AnnotationResolveRequestedAt]
			}
			return out
		}
	}
}

// gatherFacts states what res holds for the domain, looking up the plan recorded for the
// bundle Job once the recipe names it.
func (r *Reconciler) gatherFacts(ctx context.Context, res *resolution) (domain.ResolveFacts, *outcome) {
	if res.recipeResolved && !res.recordedLooked {
		recorded, err := r.recordedPlan(ctx, res.cr, res.bundleJob)
		if err != nil {
			return domain.ResolveFacts{}, transient(err)
		}
		res.recorded, res.recordedLooked = recorded, true
	}
	return domain.ResolveFacts{
		PlacementChecked:  res.placementChecked,
		SnapshotTaken:     res.snapshotTaken,
		RecipeResolved:    res.recipeResolved,
		PlanRecorded:      res.recorded != "",
		RecordedJudged:    res.recordedJudged,
		ActivePlan:        res.cr.Status.ActivePlanDigest != "",
		UpgradeChecked:    res.upgradeChecked,
		BundleRendered:    res.bundleRendered,
		PlanWritten:       res.plan != nil,
		WrittenIsRecorded: res.plan != nil && res.plan.Digest == res.recorded,
		StillLostChecked:  res.stillLostChecked,
		JobsCleaned:       res.jobsCleaned,
	}, nil
}

// runResolveStage runs stage: nil when it established its result in res, else the outcome
// to report.
func (r *Reconciler) runResolveStage(ctx context.Context, res *resolution, stage domain.ResolveStage) *outcome {
	switch stage {
	case domain.ResolveCheckPlacement:
		return r.checkPlacement(ctx, res)
	case domain.ResolveSnapshot:
		return r.snapshotStage(ctx, res)
	case domain.ResolveRecipe:
		return r.recipeStage(ctx, res)
	case domain.ResolveRepairRecorded:
		return r.repairRecorded(ctx, res)
	case domain.ResolveUpgradeCheck:
		return r.upgradeCheck(ctx, res)
	case domain.ResolveBundle:
		return r.bundleStage(ctx, res)
	case domain.ResolvePlanWrite:
		return r.writePlan(ctx, res)
	case domain.ResolveStillLost:
		return r.stillLost(ctx, res)
	case domain.ResolveJobCleanup:
		return r.cleanupJobs(ctx, res)
	case domain.ResolveDone:
		return resolvedTo(res.plan.Digest)
	}
	return transient(fmt.Errorf("unknown resolve stage %d", stage))
}

// release is the AICR release every Job name and kept result is keyed by.
func (r *Reconciler) release() shared.Release {
	return shared.Release{Version: r.Config.AICRVersion, Image: r.Config.Image}
}
