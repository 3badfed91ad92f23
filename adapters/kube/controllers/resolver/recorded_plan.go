package resolver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// recordedPlan returns the digest of this runtime's plan recorded for the
// bundle Job name, or "" when there is none yet. Only a plan under the operator's
// seal counts (planstore.SealedPlan): the seal covers the resolved-by label, which
// another identity could otherwise put on a plan of its choice while the plans
// policy's binding is missing. A plan from before the seal key is resolved once more,
// and the writer seals it where it is.
func (r *Reconciler) recordedPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, bundleJob string) (string, error) {
	list := &corev1.ConfigMapList{}
	err := r.Reader.List(ctx, list, client.InNamespace(r.Config.OperatorNamespace), client.MatchingLabels{
		aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan, aicrv1alpha1.LabelRuntimeUID: string(cr.UID), aicrv1alpha1.LabelResolvedBy: bundleJob,
	})
	if err != nil {
		return "", fmt.Errorf("list plans: %w", err)
	}
	for i := range list.Items {
		stored := plantrust.Stored(&list.Items[i])
		if plantrust.Check(stored, stored.DigestAnnotation, string(cr.UID)) == nil && stored.Source == domain.SourceResolved &&
			planstore.SealedPlan(r.Config.Sealer, &list.Items[i]) {
			return stored.DigestAnnotation, nil
		}
	}
	return "", nil
}
