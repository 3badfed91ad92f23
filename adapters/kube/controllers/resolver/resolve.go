package resolver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

// resolve runs the resolution pipeline as far as it can get in one reconcile:
// discovery and placement checks, snapshot (criteria check), recipe (override
// checks), upgrade-check against the active plan, bundle, plan.
func (r *Reconciler) resolve(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) *outcome {
	if out := r.discover(ctx, cr); out != nil {
		return out
	}
	snapName := shared.SnapshotJob(cr, r.release())
	snapshot, out := r.snapshotStage(ctx, cr, snapName)
	if out != nil {
		return out
	}
	handled := cr.Annotations[aicrv1alpha1.AnnotationResolveRequestedAt]
	out = r.afterSnapshot(ctx, cr, snapName, snapshot)
	out.handled = handled
	return out
}

func (r *Reconciler) afterSnapshot(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, snapName string, snapshot []byte) *outcome {
	config, err := shared.AICRConfig(cr)
	if err != nil {
		return stalled(&domain.Stall{Reason: domain.StallAICRInvalidRequest, Message: err.Error()})
	}
	inherit, out := r.inheritance(ctx, cr)
	if out != nil {
		return out
	}
	recipeName := shared.RecipeJob(cr, r.release(), snapName, config, inherit.digest)
	inputs := map[string][]byte{inputConfig: config, inputSnapshot: snapshot}
	var inheritFrom string
	if inherit.recipe != nil {
		inheritFrom = inputsDir + inputInherit
		inputs[inputInherit] = inherit.recipe
	}
	recipe, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobRecipe, Name: recipeName, KeepRole: aicrv1alpha1.RoleRecipe,
		Args:   shared.RecipeArgs(inputsDir+inputConfig, inputsDir+inputSnapshot, inheritFrom, r.Jobs.OutputRef(recipeName)),
		Inputs: inputs,
	})
	if out != nil {
		return out
	}
	components, stall, err := configdoc.RecipeComponents(recipe)
	if err != nil {
		return stalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported, Message: err.Error()})
	}
	if stall != nil {
		return stalled(stall)
	}
	overrides, err := specOverrides(cr.Spec.Overrides)
	if err != nil {
		return stalled(&domain.Stall{Reason: domain.StallInvalidOverride, Message: err.Error()})
	}
	if s := domain.CheckOverrides(overrides); s != nil {
		return stalled(s)
	}
	return r.render(ctx, cr, recipeName, recipe, domain.UnlistedComponents(overrides, components))
}

// discover checks placement and node groups (RES-2, RES-3).
func (r *Reconciler) discover(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) *outcome {
	if s := domain.CheckTolerations(placementTolerations(cr.Spec.Placement)); s != nil {
		return stalled(s)
	}
	stall, err := r.nodes.check(ctx, r.Reader, nodePlacement(cr.Spec.Placement))
	if err != nil {
		return transient(err)
	}
	if stall != nil {
		return stalled(stall)
	}
	return nil
}

// snapshotStage takes (or reuses) the snapshot and checks the declared criteria against it.
func (r *Reconciler) snapshotStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, name string) ([]byte, *outcome) {
	snapshot, out := r.fileStage(ctx, cr, app.Stage{
		Kind: ports.JobSnapshot, Name: name, KeepRole: aicrv1alpha1.RoleSnapshot,
		Args: shared.SnapshotArgs(r.Snapshots.OutputRef(name)), Placement: shared.JobPlacement(cr.Spec.Placement.Accelerated),
	})
	if out != nil {
		return nil, out
	}
	facts, stall, err := configdoc.SnapshotFacts(snapshot)
	if err != nil {
		return nil, stalled(&domain.Stall{Reason: domain.StallSnapshotIncomplete, Message: err.Error()})
	}
	if stall != nil {
		return nil, stalled(stall)
	}
	if s := domain.CheckSnapshot(specCriteria(cr), facts); s != nil {
		return nil, stalled(s)
	}
	return snapshot, nil
}

// fileStage runs a stage whose output is one artifact file (ports.JobArtifactFile).
func (r *Reconciler) fileStage(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, st app.Stage) ([]byte, *outcome) {
	files, out := r.runStage(ctx, cr, st)
	if out != nil {
		return nil, out
	}
	data, err := fs.ReadFile(files, ports.JobArtifactFile)
	if err != nil {
		return nil, stalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported,
			Message: fmt.Sprintf("aicr %s job %s wrote no %s", st.Kind, st.Name, ports.JobArtifactFile)})
	}
	return data, nil
}

// render finishes the resolution: a plan already recorded for the bundle
// Job (the resolved-by label) is success without a new Job, once its lost
// values or recipe ConfigMaps, if any, are rebuilt (repairRecorded); otherwise,
// and when a lost one cannot be proven, the
// upgrade-check (when there is an active plan) and bundle Jobs run
// (bundleStage), the plan is built and written with the bundle's reference,
// and both Jobs are deleted once it is recorded.
func (r *Reconciler) render(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, recipeName string, recipe []byte, unlisted []string) *outcome {
	args := shared.BundleArgs(cr)
	name := shared.BundleJob(string(cr.UID), recipeName, args)
	recorded, err := r.recordedPlan(ctx, cr, name)
	if err != nil {
		return transient(err)
	}
	if recorded != "" {
		if out := r.repairRecorded(ctx, cr, recorded, recipe); out != nil {
			return out
		}
	}
	check, out := r.upgradeCheck(ctx, cr, recipe)
	if out != nil {
		return out
	}
	files, bundleRef, out := r.bundleStage(ctx, cr, name, recipe, args, unlisted)
	if out != nil {
		return out
	}
	built, out := r.buildPlan(cr, files)
	if out != nil {
		return out
	}
	plan := built.plan
	if out = r.publish(ctx, plan, files, built.chartDirs); out != nil {
		return out
	}
	w := shared.PlanWrite{Plan: plan, Recipe: recipe, ValidationRecipe: built.validationRecipe, BundleJob: name, RenderFlags: args,
		BundleRef: bundleRef, Report: check.report, FromPlan: cr.Status.ActivePlanDigest}
	writer := &shared.PlanWriter{Client: r.Client, Reader: r.Reader, Recorder: r.Recorder,
		Namespace: r.Config.OperatorNamespace, Image: r.Config.Image}
	if stall, err := writer.Write(ctx, cr, w); stall != nil || err != nil {
		if err != nil {
			return transient(err)
		}
		return stalled(stall)
	}
	if plan.Digest == recorded {
		if out := r.stillLost(ctx, cr, recorded); out != nil {
			return out
		}
	}
	for _, job := range []string{name, check.job} {
		if job == "" {
			continue
		}
		if err := app.DeleteStageJobs(ctx, r.Jobs, job); err != nil {
			return transient(err)
		}
	}
	return resolvedTo(plan.Digest)
}

// publish serves every chart of the plan from the runtime registry, pinned
// by manifest digest (mirrored upstream charts, wrapper charts for bundle-local
// ones; PLAN-2, PLAN-3, REG-1); the bundle itself is already there, pushed by
// its Job. Credential problems stall with RegistryCredentialsUnavailable,
// RegistryCredentialsStale or Unauthorized, a chart that cannot be served with
// ChartSourceUnsupported; any other registry error retries with backoff
// (RES-6). Without a registry the plan stays unpinned (its digest is the
// offline one).
func (r *Reconciler) publish(ctx context.Context, plan *domain.Plan, files fs.FS, chartDirs map[string]string) *outcome {
	if r.Registry == nil {
		return nil
	}
	stall, err := domain.PublishCharts(ctx, r.Registry, plan, func(id string) (fs.FS, error) {
		return fs.Sub(files, chartDirs[id])
	})
	if err != nil {
		return transient(err)
	}
	if stall != nil {
		return stalled(stall)
	}
	return nil
}

// release is the AICR release every Job name and kept result is keyed by.
func (r *Reconciler) release() shared.Release {
	return shared.Release{Version: r.Config.AICRVersion, Image: r.Config.Image}
}

func resolvedTo(digest string) *outcome {
	return &outcome{status: metav1.ConditionTrue, reason: ReasonResolved, message: "candidate plan " + digest, candidate: digest}
}

// builtPlan is a plan built from a rendered bundle.
type builtPlan struct {
	plan *domain.Plan
	// validationRecipe is the recipe as the bundle records it.
	validationRecipe []byte
	// chartDirs maps a release ID to its bundle folder (local charts).
	chartDirs map[string]string
}

// buildPlan reads the bundle (RES-5: its AICR version must be the pinned
// one) and builds the plan, checking release namespaces (RES-3).
func (r *Reconciler) buildPlan(cr *aicrv1alpha1.ClusterRuntime, files fs.FS) (builtPlan, *outcome) {
	bundle, err := r.Bundles.ReadBundle(files)
	if err != nil {
		return builtPlan{}, stalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported, Message: err.Error()})
	}
	if s := domain.CheckAICRVersion(r.Config.AICRVersion, bundle.AICRVersion); s != nil && bundle.Layout == ports.LayoutV1 {
		return builtPlan{}, stalled(s)
	}
	plan, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: string(cr.UID), Source: domain.SourceResolved, Bundle: bundle})
	var se *domain.StallError
	if errors.As(err, &se) {
		return builtPlan{}, stalled(&se.Stall)
	}
	if err != nil {
		return builtPlan{}, stalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported, Message: err.Error()})
	}
	if s := domain.CheckNamespaces(plan, r.Config.AllowedNamespaces); s != nil {
		return builtPlan{}, stalled(s)
	}
	built := builtPlan{plan: plan, chartDirs: map[string]string{}}
	for _, br := range bundle.Releases {
		built.chartDirs[br.Name] = br.Path
	}
	built.validationRecipe, _ = fs.ReadFile(files, "recipe.yaml")
	return built, nil
}
