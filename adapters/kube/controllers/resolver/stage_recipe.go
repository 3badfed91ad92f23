package resolver

import (
	"context"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// recipeStage runs (or reuses) the recipe Job over the AICRConfig and the snapshot, inheriting
// from the active plan's recipe on an AICR upgrade, and checks the overrides against the
// recipe's components (RES-3); it names the bundle Job the recipe renders with.
func (r *Reconciler) recipeStage(ctx context.Context, run *resolution) *outcome {
	cr := run.cr
	config, err := shared.AICRConfig(cr)
	if err != nil {
		return stalled(domain.RequestInvalid(err.Error()))
	}
	inherit, out := r.inheritance(ctx, cr)
	if out != nil {
		return out
	}
	name := shared.RecipeJob(cr, r.release(), run.snapshotJob, config, inherit.digest)
	inputs := map[string][]byte{inputConfig: config, inputSnapshot: run.snapshot}
	var inheritFrom string
	if inherit.recipe != nil {
		inheritFrom = inputsDir + inputInherit
		inputs[inputInherit] = inherit.recipe
	}
	recipe, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobRecipe, Name: name, KeepRole: aicrv1alpha1.RoleRecipe,
		Args:   shared.RecipeArgs(inputsDir+inputConfig, inputsDir+inputSnapshot, inheritFrom, r.Jobs.OutputRef(name)),
		Inputs: inputs,
	})
	if out != nil {
		return out
	}
	components, stall, err := configdoc.RecipeComponents(recipe)
	if err != nil {
		return stalled(domain.ArtifactUnreadable(err.Error()))
	}
	if stall != nil {
		return stalled(stall)
	}
	overrides, err := specOverrides(cr.Spec.Overrides)
	if err != nil {
		return stalled(domain.OverrideUnparsable(err.Error()))
	}
	if s := domain.CheckOverrides(overrides); s != nil {
		return stalled(s)
	}
	run.recipeResolved, run.recipeJob, run.recipe = true, name, recipe
	run.unlisted = domain.UnlistedComponents(overrides, components)
	run.renderFlags = shared.BundleArgs(cr)
	run.bundleJob = shared.BundleJob(string(cr.UID), name, run.renderFlags)
	return nil
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
