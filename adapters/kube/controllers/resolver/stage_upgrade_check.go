package resolver

import (
	"context"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

// upgradeReport is the result of the upgrade-check stage.
type upgradeReport struct {
	// job is the upgrade-check Job to delete once the plan is recorded ("" = none ran).
	job string
	// report is AICR's JSON report (nil = none).
	report []byte
}

// upgradeCheck runs AICR upgrade-check from the active plan's recipe to the
// new recipe (RES-1). Its report is written with the plan as an assessment
// ConfigMap (configdoc layout, annotated with both plan digests). There is
// nothing to check without an active plan (domain.NextResolveStage then skips this stage) or
// when the active plan has no
// recipe (a rebuilt plan): with no report every Upgrade needs approval. The
// "from" recipe is read only through the verified plan (planstore.Reader: the plan's
// digest recomputed, the recipe's content digest checked); an active plan or
// recipe that does not verify stalls, so upgrade-check never compares against
// a recipe the operator did not record. Verdicts do not stop the resolution
// (--fail-on-error=false): the rollout judges them.
func (r *Reconciler) upgradeCheck(ctx context.Context, run *resolution) *outcome {
	cr, active := run.cr, run.cr.Status.ActivePlanDigest
	_, from, out := r.activeRecipe(ctx, cr, active, "upgrade-check", func(*configdoc.Plan) bool { return true })
	if out != nil {
		return out
	}
	if from == nil {
		run.upgradeChecked = true
		return nil
	}
	name := shared.UpgradeCheckJob(cr, r.release(), active, run.recipe)
	report, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobUpgradeCheck, Name: name,
		Inputs: map[string][]byte{inputFrom: from, inputRecipe: run.recipe},
		Args:   shared.UpgradeCheckArgs(inputsDir+inputFrom, inputsDir+inputRecipe, r.Jobs.OutputRef(name)),
	})
	if out != nil {
		return out
	}
	run.upgradeChecked, run.upgrade = true, upgradeReport{job: name, report: report}
	return nil
}
