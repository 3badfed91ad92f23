package planstore

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// PartsWrite is what WriteParts writes for a recorded plan: the lost parts
// domain.DecidePlanParts let be rebuilt.
type PartsWrite struct {
	// Doc is the recorded plan document (without values).
	Doc *configdoc.Plan
	// Values are the plan's releases with their restored values (domain.RestoreValues); nil
	// when the values ConfigMap is not rebuilt.
	Values []domain.Release
	// Recipes are the recipes to write by ConfigMap name, as the plan records them (YAML or JSON).
	Recipes map[string][]byte
}

// WriteParts writes the rebuilt parts of a recorded plan, each create-once (PLAN-5) under
// Writes, as Write writes them. Every ConfigMap is built first and must have exactly the
// name and digest the plan records, or nothing is written (PlanUnreadable); one that exists
// meanwhile with other content is a Conflict. Any other error is transient.
func (pw *Writer) WriteParts(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, w PartsWrite) (*domain.Stall, error) {
	d := w.Doc.Digest
	var objs []*corev1.ConfigMap
	if w.Values != nil {
		plan := w.Doc.Plan
		plan.Releases = w.Values
		values, refs, err := configdoc.EncodeValues(&plan)
		if err != nil || !slices.Equal(refs, w.Doc.ValuesRefs) {
			return plantrust.Unreadable("plan %s: its rebuilt values are not the values ConfigMap it records (%v)", d, err), nil
		}
		objs = append(objs, pw.planObject(cr, aicrv1alpha1.RoleValues, values.Name, d, values.Data))
	}
	names := make([]string, 0, len(w.Recipes))
	for name := range w.Recipes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		cm, ref, err := pw.recipeObject(cr, d, w.Recipes[name])
		if err != nil || ref.Name != name || !recordsRecipe(w.Doc, ref) {
			return plantrust.Unreadable("plan %s: its rebuilt recipe is not the recipe ConfigMap %s it records", d, name), nil
		}
		objs = append(objs, cm)
	}
	Writes.Lock()
	defer Writes.Unlock()
	for _, cm := range objs {
		if stall, err := pw.createOnce(ctx, cm); stall != nil || err != nil {
			return stall, err
		}
	}
	return nil, nil
}

// recordsRecipe reports whether doc references the recipe ref (name and digest).
func recordsRecipe(doc *configdoc.Plan, ref *configdoc.ConfigMapRef) bool {
	for _, r := range []*configdoc.ConfigMapRef{doc.ConfigMapRef, doc.ValidationConfigMapRef} {
		if r != nil && *r == *ref {
			return true
		}
	}
	return false
}
