package retention

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
)

// retentionRoles are the roles of the ConfigMaps retention deletes besides plans; a
// ConfigMap of any other role is never touched.
var retentionRoles = []string{aicrv1alpha1.RoleRecipe, aicrv1alpha1.RoleValues, aicrv1alpha1.RoleAssessment, aicrv1alpha1.RoleSnapshot}

// storedObjects is what the operator namespace holds for retention: plan ConfigMaps with their
// documents (planstore.Reader.List), and the metadata of the other ConfigMaps the operator
// labelled.
type storedObjects struct {
	plans  []planstore.Listed
	others []metav1.PartialObjectMetadata
}

// listStored lists, uncached, the plans of the operator namespace through the plan store's
// reader and the other ConfigMaps that carry the operator's managed-by label and a role
// retention handles, as metadata only.
func (r *Reconciler) listStored(ctx context.Context) (storedObjects, error) {
	plans, err := r.plans.List(ctx)
	if err != nil {
		return storedObjects{}, err
	}
	out := storedObjects{plans: plans}
	role, err := labels.NewRequirement(aicrv1alpha1.LabelRole, selection.In, retentionRoles)
	if err != nil {
		return storedObjects{}, fmt.Errorf("role selector: %w", err)
	}
	byManager, err := labels.NewRequirement(aicrv1alpha1.LabelManagedBy, selection.Equals, []string{aicrv1alpha1.ManagedByValue})
	if err != nil {
		return storedObjects{}, fmt.Errorf("managed-by selector: %w", err)
	}
	others := &metav1.PartialObjectMetadataList{}
	others.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	if err := r.reader.List(ctx, others, client.InNamespace(r.namespace),
		client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*role, *byManager)}); err != nil {
		return storedObjects{}, fmt.Errorf("list recipes, values and kept results: %w", err)
	}
	out.others = others.Items
	return out, nil
}
