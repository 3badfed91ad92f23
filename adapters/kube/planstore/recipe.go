package planstore

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// ReadValidation sets what deployment validation needs of a plan document on env (RO-10):
// its validation recipe, the recipe ConfigMap named by validationConfigMapRef or, for a plan
// written before that reference existed, by configMapRef (PLAN-2), and the digest of its
// rendered bundle. A plan without a recipe reference leaves the recipe nil (the domain stalls
// PlanWithoutRecipe); a referenced recipe ConfigMap that is missing stalls PlanWithoutRecipe
// naming it (PLAN-5). A recipe whose content does not match the reference's digest, or a bundle
// reference not pinned by digest, stalls PlanUnreadable: the operator never guesses (PLAN-6).
// Any other error is transient.
func (p *Reader) ReadValidation(ctx context.Context, doc *configdoc.Plan, env *domain.Environment) (*domain.Stall, error) {
	if doc.BundleRef != "" {
		_, digest, _ := strings.Cut(doc.BundleRef, "@")
		if !configdoc.IsDigest(digest) {
			return plantrust.Unreadable("plan %s: bundle reference %q is not pinned by digest", doc.Digest, doc.BundleRef), nil
		}
		env.BundleDigest = ports.Digest(digest)
	}
	ref := doc.ValidationConfigMapRef
	if ref == nil {
		ref = doc.ConfigMapRef
	}
	if ref == nil {
		return nil, nil
	}
	raw, stall, err := p.Recipe(ctx, doc, ref)
	if stall != nil || err != nil {
		return stall, err
	}
	env.ValidationRecipe = raw
	return nil, nil
}

// Recipe reads the recipe ref of the plan doc names and returns it only when its content
// matches the digest the plan records (PLAN-6). A missing recipe ConfigMap stalls
// PlanWithoutRecipe naming it (PLAN-5); one without the recipe key or with other content
// stalls PlanUnreadable. Any other error is transient.
func (p *Reader) Recipe(ctx context.Context, doc *configdoc.Plan, ref *configdoc.ConfigMapRef) ([]byte, *domain.Stall, error) {
	cm := &corev1.ConfigMap{}
	if err := p.reader.Get(ctx, types.NamespacedName{Namespace: p.namespace, Name: ref.Name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, domain.PlanRecipeMissing(fmt.Sprintf(
				"plan %s: recipe ConfigMap %s/%s not found", doc.Digest, p.namespace, ref.Name)), nil
		}
		return nil, nil, fmt.Errorf("read recipe %s of plan %s: %w", ref.Name, doc.Digest, err)
	}
	raw, ok := cm.Data[configdoc.RecipeKey]
	if !ok {
		return nil, plantrust.Unreadable("plan %s: recipe ConfigMap %s has no %s", doc.Digest, ref.Name, configdoc.RecipeKey), nil
	}
	if got := configdoc.ContentDigest([]byte(raw)); got != ref.Digest {
		return nil, plantrust.Unreadable("plan %s: recipe ConfigMap %s holds %s under %s, the plan records %s",
			doc.Digest, ref.Name, got, configdoc.RecipeKey, ref.Digest), nil
	}
	return []byte(raw), nil, nil
}
