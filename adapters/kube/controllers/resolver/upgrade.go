package resolver

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
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
// nothing to check without an active plan or when the active plan has no
// recipe (a rebuilt plan): with no report every Upgrade needs approval. The
// "from" recipe is read only through the verified plan (shared.PlanReader: the plan's
// digest recomputed, the recipe's content digest checked); an active plan or
// recipe that does not verify stalls, so upgrade-check never compares against
// a recipe the operator did not record. Verdicts do not stop the resolution
// (--fail-on-error=false): the rollout judges them.
func (r *Reconciler) upgradeCheck(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, recipe []byte) (upgradeReport, *outcome) {
	active := cr.Status.ActivePlanDigest
	if active == "" {
		return upgradeReport{}, nil
	}
	_, from, out := r.activeRecipe(ctx, cr, active, "upgrade-check", func(*configdoc.Plan) bool { return true })
	if out != nil || from == nil {
		return upgradeReport{}, out
	}
	name := shared.UpgradeCheckJob(cr, r.release(), active, recipe)
	report, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobUpgradeCheck, Name: name,
		Inputs: map[string][]byte{inputFrom: from, inputRecipe: recipe},
		Args:   shared.UpgradeCheckArgs(inputsDir+inputFrom, inputsDir+inputRecipe, r.Jobs.OutputRef(name)),
	})
	if out != nil {
		return upgradeReport{}, out
	}
	return upgradeReport{job: name, report: report}, nil
}

// activeRecipe returns the verified document of the active plan and, when use accepts that
// document, its resolved recipe, verified against the digest the plan records; the recipe is nil
// when there is nothing to compare: the plan's ConfigMap is gone (it is rebuilt from the engine
// objects, without a recipe), its values ConfigMap is gone (it is rebuilt or resolved again:
// repairRecorded), it records no recipe, or its recipe ConfigMap is gone. A plan or
// recipe that does not verify stalls; purpose names what the recipe is read for.
func (r *Reconciler) activeRecipe(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, active, purpose string,
	use func(*configdoc.Plan) bool) (*configdoc.Plan, []byte, *outcome) {
	plans := shared.NewPlanReader(r.Reader, r.Config.OperatorNamespace)
	doc, stall, err := plans.Document(ctx, active, string(cr.UID))
	switch {
	case err != nil:
		return nil, nil, transient(err)
	case stall != nil && stall.Reason == domain.StallPlanUnreadable && (r.planMissing(ctx, active) || r.valuesLost(ctx, cr, active)):
		return nil, nil, nil
	case stall != nil:
		return nil, nil, stalled(&domain.Stall{Reason: stall.Reason, Message: "active plan for " + purpose + ": " + stall.Message})
	case doc.ConfigMapRef == nil || !use(doc):
		return doc, nil, nil
	}
	raw, stall, err := plans.Recipe(ctx, doc, doc.ConfigMapRef)
	switch {
	case err != nil:
		return nil, nil, transient(err)
	case stall != nil && stall.Reason == domain.StallPlanWithoutRecipe:
		return doc, nil, nil // a lost recipe leaves nothing to compare: every Upgrade then needs approval
	case stall != nil:
		return nil, nil, stalled(&domain.Stall{Reason: domain.StallPlanUnreadable, Message: "active plan for " + purpose + ": " + stall.Message})
	}
	return doc, raw, nil
}

// inheritedRecipe is what the recipe Job inherits from (recipe --inherit-from).
type inheritedRecipe struct {
	// digest is the active plan's digest ("" = nothing to inherit).
	digest string
	// recipe is the active plan's verified recipe.
	recipe []byte
}

// inheritance returns the recipe the recipe Job inherits from on an AICR upgrade (docs/design/aicr-cli.md
// section 6): the active plan's resolved recipe when another AICR release (another pinned
// image) rendered that plan, read only through the verified plan and the content digest it
// records (activeRecipe), so a ConfigMap is never trusted by its name. The recipe is a few
// kilobytes, well inside the inputs ConfigMap next to the snapshot and AICRConfig. A plan of
// this release, or one without a recipe, inherits nothing.
func (r *Reconciler) inheritance(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) (inheritedRecipe, *outcome) {
	active := cr.Status.ActivePlanDigest
	if active == "" {
		return inheritedRecipe{}, nil
	}
	rel := r.release()
	doc, raw, out := r.activeRecipe(ctx, cr, active, "recipe --inherit-from", func(doc *configdoc.Plan) bool {
		return shared.InheritFrom(doc, active, rel) != ""
	})
	if out != nil || raw == nil {
		return inheritedRecipe{}, out
	}
	return inheritedRecipe{digest: shared.InheritFrom(doc, active, rel), recipe: raw}, nil
}

// planMissing reports whether the plan ConfigMap of digest does not exist.
func (r *Reconciler) planMissing(ctx context.Context, digest string) bool {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		return false
	}
	err = r.Reader.Get(ctx, client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: name}, &corev1.ConfigMap{})
	return apierrors.IsNotFound(err)
}

// valuesLost reports whether the values ConfigMap of the plan of digest does not exist.
func (r *Reconciler) valuesLost(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, digest string) bool {
	_, parts, _, err := shared.NewPlanReader(r.Reader, r.Config.OperatorNamespace).Parts(ctx, digest, string(cr.UID))
	for _, p := range parts {
		if err == nil && p.Kind == domain.PartValues && p.State == domain.PartLost {
			return true
		}
	}
	return false
}
