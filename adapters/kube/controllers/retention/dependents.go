package retention

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// doomedDependents returns the recipe and values ConfigMaps no retained plan references (RET-1:
// they are content-addressed and shared, so only the references count, never the plan-digest
// annotation, which names the first plan only) and the kept AICR results RET-3 lets go. A
// retained plan whose document cannot be read may reference any recipe or values
// ConfigMap, so then none of them is deleted.
func doomedDependents(current currentResolution, retained []planstore.Listed, rollouts []*aicrv1alpha1.RuntimeRollout,
	others []metav1.PartialObjectMetadata) []doomedObject {
	refs, known := retainedPlanRefs(retained)
	var doomed []doomedObject
	var results []domain.JobResult
	for i := range others {
		o := &others[i]
		role := o.Labels[aicrv1alpha1.LabelRole]
		if isPlanDependent(o) {
			if known && !refs[o.Name] {
				doomed = append(doomed, doomedObject{kind: role, meta: o.ObjectMeta, rule: "RET-1"})
			}
			continue
		}
		results = append(results, domain.JobResult{
			Name: o.Name, Snapshot: role == aicrv1alpha1.RoleSnapshot, Succeeded: true, CreatedAt: o.CreationTimestamp.Time,
		})
	}
	gone := nameSet(domain.JobResultsToDelete(results, keptResultRefs(current, retained, rollouts, others, known)))
	for i := range others {
		if o := &others[i]; gone[o.Name] && !isPlanDependent(o) {
			doomed = append(doomed, doomedObject{kind: o.Labels[aicrv1alpha1.LabelRole], meta: o.ObjectMeta, rule: "RET-3"})
		}
	}
	return doomed
}

// isPlanDependent reports a values ConfigMap or a plan's recipe ConfigMap (the resolver
// annotates it with a plan digest; a kept result of a recipe Job has no such annotation).
func isPlanDependent(o *metav1.PartialObjectMetadata) bool {
	switch o.Labels[aicrv1alpha1.LabelRole] {
	case aicrv1alpha1.RoleValues:
		return true
	case aicrv1alpha1.RoleRecipe:
		return o.Annotations[aicrv1alpha1.AnnotationPlanDigest] != ""
	}
	return false
}

// retainedPlanRefs returns the recipe and values ConfigMaps the retained plans reference, and
// whether every retained plan could be read.
func retainedPlanRefs(retained []planstore.Listed) (map[string]bool, bool) {
	refs := map[string]bool{}
	known := true
	for _, p := range retained {
		if p.Doc == nil {
			known = false
			continue
		}
		for _, ref := range []*configdoc.ConfigMapRef{p.Doc.ConfigMapRef, p.Doc.ValidationConfigMapRef} {
			if ref != nil {
				refs[ref.Name] = true
			}
		}
		for _, ref := range p.Doc.ValuesRefs {
			refs[ref.Name] = true
		}
	}
	return refs, known
}

// keptResultRefs returns the kept results a retained plan or rollout references (RET-3): the
// assessment of a retained plan (its plan-digest annotation) or of a retained rollout (its
// assessmentDigest), the recipe result a retained plan was rendered from, and the snapshot
// and recipe results of the current resolution. With a retained plan whose document cannot be decoded every
// recipe result counts as referenced.
func keptResultRefs(current currentResolution, retained []planstore.Listed, rollouts []*aicrv1alpha1.RuntimeRollout,
	others []metav1.PartialObjectMetadata, known bool) map[string]bool {
	refs := map[string]bool{current.snapshot: true, current.recipe: true}
	plans := map[string]bool{}
	for _, p := range retained {
		plans[p.Meta.Name] = true
	}
	for _, ro := range rollouts {
		if name, err := configdoc.AssessmentConfigMapName(ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest, ro.Spec.AssessmentDigest); err == nil {
			refs[name] = true
		}
	}
	for i := range others {
		o := &others[i]
		switch o.Labels[aicrv1alpha1.LabelRole] {
		case aicrv1alpha1.RoleAssessment:
			if name, err := configdoc.PlanConfigMapName(o.Annotations[aicrv1alpha1.AnnotationPlanDigest]); err == nil && plans[name] {
				refs[o.Name] = true
			}
		case aicrv1alpha1.RoleRecipe:
			if !known || renderedFromRecipe(o.Name, retained) {
				refs[o.Name] = true
			}
		}
	}
	return refs
}

// renderedFromRecipe reports whether a retained plan was rendered from the kept result of the
// recipe Job recipeJob: its resolved-by label names the bundle Job of that recipe with the
// render flags the plan records.
func renderedFromRecipe(recipeJob string, plans []planstore.Listed) bool {
	for _, p := range plans {
		if p.Doc != nil && p.Meta.Labels[aicrv1alpha1.LabelResolvedBy] == shared.BundleJob(p.Doc.RuntimeUID, recipeJob, p.Doc.RenderFlags) {
			return true
		}
	}
	return false
}
