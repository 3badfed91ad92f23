package planstore

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
)

// Listed is one plan ConfigMap as List returns it: its metadata and its document, nil when the
// document cannot be decoded.
type Listed struct {
	Meta metav1.ObjectMeta
	Doc  *configdoc.Plan
}

// List returns the plan ConfigMaps of the namespace that carry the operator's managed-by label
// and the plan role, each with its decoded document (plantrust.Decode); a ConfigMap whose name
// is not a plan name is left out. The documents are not checked against a digest or a runtime:
// a caller weighing what plans reference (retention) treats an undecodable one as referencing
// anything.
func (p *Reader) List(ctx context.Context) ([]Listed, error) {
	var plans corev1.ConfigMapList
	if err := p.reader.List(ctx, &plans, client.InNamespace(p.namespace), client.MatchingLabels{
		aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue, aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan,
	}); err != nil {
		return nil, fmt.Errorf("list plans: %w", err)
	}
	var out []Listed
	for i := range plans.Items {
		cm := &plans.Items[i]
		if !configdoc.IsPlanConfigMapName(cm.Name) {
			continue
		}
		doc, _ := plantrust.Decode(cm)
		out = append(out, Listed{Meta: cm.ObjectMeta, Doc: doc})
	}
	return out, nil
}
