package retention

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
)

// retentionRoles are the roles of the ConfigMaps retention deletes besides plans; a
// ConfigMap of any other role is never touched.
var retentionRoles = []string{aicrv1alpha1.RoleRecipe, aicrv1alpha1.RoleValues, aicrv1alpha1.RoleAssessment, aicrv1alpha1.RoleSnapshot}

// storedObjects is what the operator namespace holds for retention: plan ConfigMaps with their
// documents, and the metadata of the other ConfigMaps the operator labelled.
type storedObjects struct {
	plans  []storedPlan
	others []metav1.PartialObjectMetadata
}

// storedPlan is one plan ConfigMap; doc is nil when its document cannot be decoded.
type storedPlan struct {
	meta metav1.ObjectMeta
	doc  *configdoc.Plan
}

// listStored lists, uncached, the ConfigMaps of the operator namespace that carry the
// operator's managed-by label and a role retention handles: plans with their data, the
// others as metadata only. A plan ConfigMap whose name is not a plan name is left alone.
func (r *Reconciler) listStored(ctx context.Context) (storedObjects, error) {
	managed := client.MatchingLabels{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue, aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan}
	var plans corev1.ConfigMapList
	if err := r.reader.List(ctx, &plans, client.InNamespace(r.namespace), managed); err != nil {
		return storedObjects{}, fmt.Errorf("list plans: %w", err)
	}
	var out storedObjects
	for i := range plans.Items {
		cm := &plans.Items[i]
		if !configdoc.IsPlanConfigMapName(cm.Name) {
			continue
		}
		p := storedPlan{meta: cm.ObjectMeta}
		if doc, err := configdoc.DecodePlan([]byte(cm.Data[configdoc.PlanKey])); err == nil {
			p.doc = doc
		}
		out.plans = append(out.plans, p)
	}
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
