package resolver

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// repairRecorded judges the plan of digest the current render already recorded before it is
// reported as the candidate again: its values and recipe ConfigMaps must be there as the plan
// records them (domain.DecidePlanParts). Lost ones are rebuilt, when every one is proven: the
// recipe from the recipe stage's result at hand, the values and the validation recipe from the
// plan's bundle pulled again from the runtime registry by the digest the plan records, each
// checked against the digest the plan records. The outcome is nil when the plan must be
// resolved again (a part cannot be proven): the render then runs its Jobs as for a new plan.
func (r *Reconciler) repairRecorded(ctx context.Context, run *resolution) *outcome {
	out := r.judgeRecorded(ctx, run.cr, run.recorded, run.recipe)
	run.recordedJudged = out == nil
	if out != nil && out.candidate != "" {
		if err := r.deleteRenderJobs(ctx, run); err != nil {
			return transient(err)
		}
	}
	return out
}

// deleteRenderJobs deletes the bundle and upgrade-check Jobs of the recorded plan's render
// that are still there (RES-7): an operator stopped after it wrote the plan and before its
// ResolveJobCleanup left them, and the recorded plan is reported without that stage.
func (r *Reconciler) deleteRenderJobs(ctx context.Context, run *resolution) error {
	names := []string{run.bundleJob}
	if active := run.cr.Status.ActivePlanDigest; active != "" {
		names = append(names, shared.UpgradeCheckJob(run.cr, r.release(), active, run.recipe))
	}
	for _, name := range names {
		if err := app.DeleteLeftStageJobs(ctx, r.Jobs, name); err != nil {
			return err
		}
	}
	return nil
}

// judgeRecorded is repairRecorded for the plan of digest recorded for the current render.
func (r *Reconciler) judgeRecorded(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, digest string, recipe []byte) *outcome {
	plans := planstore.NewReader(r.Reader, r.Config.OperatorNamespace, r.Config.Sealer)
	doc, parts, stall, err := plans.Parts(ctx, digest, string(cr.UID))
	switch {
	case err != nil:
		return transient(err)
	case stall != nil: // the plan ConfigMap itself: judged where it is read
		return resolvedTo(digest)
	}
	w, out := r.rebuildParts(ctx, doc, parts, recipe)
	if out != nil {
		return out
	}
	d := domain.DecidePlanParts(digest, parts)
	switch d.Action {
	case domain.PartsRefused:
		return stalled(d.Stall)
	case domain.PartsResolveAgain:
		r.event(cr, corev1.EventTypeWarning, domain.EventPlanResolvedAgain, "%s", d.Message)
		return nil
	case domain.PartsRebuild:
		writer := &planstore.Writer{Client: r.Client, Reader: r.Reader, Recorder: r.Recorder, Namespace: r.Config.OperatorNamespace}
		if stall, err := writer.WriteParts(ctx, cr, w); stall != nil || err != nil {
			if err != nil {
				return transient(err)
			}
			return stalled(stall)
		}
		r.event(cr, corev1.EventTypeNormal, domain.EventPlanPartsRebuilt, "%s", d.Message)
	case domain.PartsIntact:
	}
	return resolvedTo(digest)
}

// rebuildParts rebuilds each lost part of doc it can from a source the operator trusts and
// records in the part the digest of what it rebuilt and from where (or why nothing), for
// domain.DecidePlanParts; it returns what to write when every part is proven. The bundle is
// pulled only when a lost part needs it.
func (r *Reconciler) rebuildParts(ctx context.Context, doc *configdoc.Plan, parts []domain.PlanPart, recipe []byte) (planstore.PartsWrite, *outcome) {
	w := planstore.PartsWrite{Doc: doc, Recipes: map[string][]byte{}}
	src := &bundleSource{r: r, doc: doc}
	for i := range parts {
		p := &parts[i]
		if p.State != domain.PartLost {
			continue
		}
		if p.Kind == domain.PartValues {
			bundle, out := src.parts(ctx)
			if out != nil {
				return w, out
			}
			if bundle == nil {
				p.Source = src.why
				continue
			}
			releases, why := domain.RestoreValues(doc.Digest, doc.Releases, bundle.Values)
			if releases == nil {
				p.Source = src.ref() + ": " + why
				continue
			}
			p.Rebuilt, p.Source, w.Values = doc.Digest, src.ref(), releases
			continue
		}
		got, _ := planstore.RecipeDigest(recipe)
		if got == p.Recorded {
			p.Rebuilt, p.Source, w.Recipes[p.Name] = got, "the recipe stage's result", recipe
			continue
		}
		why := []string{"the recipe stage's result has digest " + got}
		bundle, out := src.parts(ctx)
		switch {
		case out != nil:
			return w, out
		case bundle == nil:
			why = append(why, src.why)
		default:
			got, _ := planstore.RecipeDigest(bundle.Recipe)
			if got == p.Recorded {
				p.Rebuilt, p.Source, w.Recipes[p.Name] = got, src.ref(), bundle.Recipe
				continue
			}
			why = append(why, "the recipe.yaml of "+src.ref()+" has digest "+got)
		}
		p.Source = strings.Join(why, ", ")
	}
	return w, nil
}

// bundleSource pulls the bundle a plan records once, when a lost part first needs it.
type bundleSource struct {
	r      *Reconciler
	doc    *configdoc.Plan
	pulled bool
	bundle *app.BundleParts
	// why says why there is no bundle to rebuild from.
	why string
}

// ref is the bundle reference the plan records.
func (b *bundleSource) ref() string { return "bundle " + b.doc.BundleRef }

// parts returns the bundle's parts, nil with why set when there is none to rebuild from, or
// the outcome of a registry stall or transient error.
func (b *bundleSource) parts(ctx context.Context) (*app.BundleParts, *outcome) {
	if b.pulled {
		return b.bundle, nil
	}
	_, digest, _ := strings.Cut(b.doc.BundleRef, "@")
	switch {
	case b.doc.BundleRef == "":
		b.pulled, b.why = true, "the plan records no bundle"
		return nil, nil
	case !configdoc.IsDigest(digest):
		b.pulled, b.why = true, "its bundle reference "+b.doc.BundleRef+" is not pinned by digest"
		return nil, nil
	case b.r.Registry == nil:
		b.pulled, b.why = true, "no runtime registry to pull "+b.ref()+" from"
		return nil, nil
	}
	bundle, why, stall, err := app.PullBundleParts(ctx, b.r.Registry, b.r.Bundles, ports.Digest(digest))
	switch {
	case err != nil:
		return nil, transient(err)
	case stall != nil:
		return nil, stalled(stall)
	}
	b.pulled, b.bundle, b.why = true, bundle, why
	return bundle, nil
}
