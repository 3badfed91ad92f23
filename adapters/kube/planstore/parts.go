package planstore

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// Parts returns the plan document of digest for runtimeUID without its values, and what stands
// at each ConfigMap it references besides its own (domain.PlanPart: intact, lost or foreign):
// its values ConfigMap (schema 2) and its recipe and validation recipe ConfigMaps, each once.
// Nothing is rebuilt here: Rebuilt and Source are left for the caller. Stalls are those of
// Document for the plan ConfigMap itself; any other error is transient.
func (p *Reader) Parts(ctx context.Context, digest, runtimeUID string) (*configdoc.Plan, []domain.PlanPart, *domain.Stall, error) {
	cm, stall, err := p.configMap(ctx, digest)
	doc, stall, err := p.header(cm, stall, err, digest, runtimeUID)
	if doc == nil {
		return nil, nil, stall, err
	}
	var parts []domain.PlanPart
	if len(doc.ValuesRefs) > 0 {
		part, err := p.valuesPart(ctx, doc)
		if err != nil {
			return nil, nil, nil, err
		}
		parts = append(parts, part)
	}
	seen := map[string]bool{}
	for _, rc := range []struct {
		kind domain.PlanPartKind
		ref  *configdoc.ConfigMapRef
	}{{domain.PartRecipe, doc.ConfigMapRef}, {domain.PartValidationRecipe, doc.ValidationConfigMapRef}} {
		if rc.ref == nil || seen[rc.ref.Name] {
			continue
		}
		seen[rc.ref.Name] = true
		part, err := p.recipePart(ctx, doc, rc.kind, rc.ref)
		if err != nil {
			return nil, nil, nil, err
		}
		parts = append(parts, part)
	}
	return doc, parts, nil, nil
}

// valuesPart reads the values ConfigMap of doc: intact when every release's values under it
// have the valuesDigest the plan records and the plan with them has its digest.
func (p *Reader) valuesPart(ctx context.Context, doc *configdoc.Plan) (domain.PlanPart, error) {
	part := domain.PlanPart{Kind: domain.PartValues, Name: doc.ValuesRefs[0].Name, Recorded: doc.Digest}
	cm, err := p.get(ctx, part.Name)
	switch {
	case apierrors.IsNotFound(err):
		part.State = domain.PartLost
		return part, nil
	case err != nil:
		return part, fmt.Errorf("read values %s of plan %s: %w", part.Name, doc.Digest, err)
	}
	found := map[string]map[string]any{}
	for i, ref := range doc.ValuesRefs {
		values, err := configdoc.DecodeValues(ref, doc.Releases[i].ValuesDigest, cm.Data)
		if err != nil || ref.Name != part.Name {
			part.State = domain.PartForeign
			return part, nil
		}
		found[doc.Releases[i].ID] = values
	}
	if releases, _ := domain.RestoreValues(doc.Digest, doc.Releases, found); releases == nil {
		part.State = domain.PartForeign
	}
	return part, nil
}

// recipePart reads the recipe ConfigMap ref names: intact when it holds, under
// configdoc.RecipeKey, content of the digest the plan records.
func (p *Reader) recipePart(ctx context.Context, doc *configdoc.Plan, kind domain.PlanPartKind,
	ref *configdoc.ConfigMapRef) (domain.PlanPart, error) {
	part := domain.PlanPart{Kind: kind, Name: ref.Name, Recorded: ref.Digest}
	cm, err := p.get(ctx, ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		part.State = domain.PartLost
		return part, nil
	case err != nil:
		return part, fmt.Errorf("read recipe %s of plan %s: %w", ref.Name, doc.Digest, err)
	}
	if raw, ok := cm.Data[configdoc.RecipeKey]; !ok || configdoc.ContentDigest([]byte(raw)) != ref.Digest || len(cm.BinaryData) > 0 {
		part.State = domain.PartForeign
	}
	return part, nil
}

func (p *Reader) get(ctx context.Context, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	return cm, p.reader.Get(ctx, types.NamespacedName{Namespace: p.namespace, Name: name}, cm)
}

// RecipeDigest is the digest a plan records for a recipe (configdoc.ConfigMapRef): that of its
// JSON form, as the recipe ConfigMap stores it.
func RecipeDigest(raw []byte) (string, error) {
	doc, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return "", fmt.Errorf("recipe: %w", err)
	}
	return configdoc.ContentDigest(doc), nil
}
