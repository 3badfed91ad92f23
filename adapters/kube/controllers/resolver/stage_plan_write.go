package resolver

import (
	"context"
	"errors"
	"io/fs"
	"time"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// publishBudget is how long one reconcile starts upstream chart fetches: well within the
// reconcile deadline (5 minutes) with a chart in flight, so a plan of many charts is
// published over several reconciles, each ending in time, instead of one cut short.
const publishBudget = time.Minute

// writePlan builds the plan from the rendered bundle (buildPlan), serves its charts from the
// runtime registry (publish) and writes it with the bundle's reference and the upgrade-check's
// report; the plan is the resolution's candidate once it is recorded.
func (r *Reconciler) writePlan(ctx context.Context, run *resolution) *outcome {
	cr := run.cr
	built, out := r.buildPlan(cr, run.bundle)
	if out != nil {
		return out
	}
	plan := built.plan
	if out = r.publish(ctx, cr, plan, run.bundle, built.chartDirs); out != nil {
		return out
	}
	w := planstore.Write{Plan: plan, Recipe: run.recipe, ValidationRecipe: built.validationRecipe, BundleJob: run.bundleJob,
		RenderFlags: run.renderFlags, BundleRef: run.bundleRef, Report: run.upgrade.report, FromPlan: cr.Status.ActivePlanDigest}
	writer := &planstore.Writer{Client: r.Client, Reader: r.Reader, Recorder: r.Recorder,
		Namespace: r.Config.OperatorNamespace, Image: r.Config.Image, Sealer: r.Config.Sealer}
	if stall, err := writer.Write(ctx, cr, w); stall != nil || err != nil {
		if err != nil {
			return transient(err)
		}
		return stalled(stall)
	}
	run.plan = plan
	return nil
}

// publish serves every chart of the plan from the runtime registry, pinned
// by manifest digest (mirrored upstream charts, wrapper charts for bundle-local
// ones; PLAN-2, PLAN-3, REG-1); the bundle itself is already there, pushed by
// its Job. Credential problems stall with RegistryCredentialsUnavailable,
// RegistryCredentialsStale or Unauthorized, a chart that cannot be served with
// ChartSourceUnsupported; any other registry error retries with backoff
// (RES-6). Without a registry the plan stays unpinned (its digest is the
// offline one).
//
// The runtime registry is consulted first: the charts of the runtime's active and candidate
// plans, those this process published before, and those the sealed record of an earlier
// process lists (restorePublished; each chart fetched is kept there, keepPublished) are served
// from it without their upstream while their tags still name the manifests recorded
// (recordPlans, domain.PublishedCharts).
// One reconcile starts upstream fetches for publishBudget; the charts left are published by
// the next reconcile, which follows at once (publishing).
func (r *Reconciler) publish(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, plan *domain.Plan, files fs.FS,
	chartDirs map[string]string) *outcome {
	if r.Registry == nil {
		return nil
	}
	if err := r.recordPlans(ctx, cr); err != nil {
		return transient(err)
	}
	if err := r.restorePublished(ctx); err != nil {
		return transient(err)
	}
	stall, err := domain.PublishCharts(ctx, r.Registry, plan, func(id string) (fs.FS, error) {
		return fs.Sub(files, chartDirs[id])
	}, domain.Publish{Published: r.published, Clock: r.Clock, Until: r.Clock.Now().Add(publishBudget), Keep: r.keepPublished})
	switch {
	case errors.Is(err, domain.ErrPublishUnfinished):
		return publishing(err.Error())
	case err != nil:
		return transient(err)
	case stall != nil:
		return stalled(stall)
	}
	return nil
}

// recordPlans records the charts of the runtime's active and candidate plans as published
// (domain.PublishedCharts.RecordPlan), each read through the plan store's trust check; a plan
// that is missing or fails it records nothing.
func (r *Reconciler) recordPlans(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) error {
	plans := planstore.NewReader(r.Reader, r.Config.OperatorNamespace, r.Config.Sealer)
	for _, digest := range []string{cr.Status.ActivePlanDigest, cr.Status.CandidatePlanDigest} {
		if digest == "" {
			continue
		}
		plan, _, err := plans.Read(ctx, digest, string(cr.UID))
		if err != nil {
			return err
		}
		if plan != nil {
			r.published.RecordPlan(plan)
		}
	}
	return nil
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
		return builtPlan{}, stalled(domain.ArtifactUnreadable(err.Error()))
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
		return builtPlan{}, stalled(domain.ArtifactUnreadable(err.Error()))
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
