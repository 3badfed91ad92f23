package resolver

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// activeRecipe returns the verified document of the active plan and, when use accepts that
// document, its resolved recipe, verified against the digest the plan records; the recipe is nil
// when there is nothing to compare: the plan's ConfigMap is gone (it is rebuilt from the engine
// objects, without a recipe), its values ConfigMap is gone (it is rebuilt or resolved again:
// repairRecorded), it records no recipe, or its recipe ConfigMap is gone. A plan or
// recipe that does not verify stalls; purpose names what the recipe is read for.
func (r *Reconciler) activeRecipe(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, active, purpose string,
	use func(*configdoc.Plan) bool) (*configdoc.Plan, []byte, *outcome) {
	plans := planstore.NewReader(r.Reader, r.Config.OperatorNamespace, r.Config.Sealer)
	doc, stall, err := plans.Document(ctx, active, string(cr.UID))
	switch {
	case err != nil:
		return nil, nil, transient(err)
	case stall != nil && stall.Reason() == domain.StallPlanUnreadable && (r.planMissing(ctx, active) || r.valuesLost(ctx, cr, active)):
		return nil, nil, nil
	case stall != nil:
		return nil, nil, stalled(stall.Reworded("active plan for "+purpose+": ", ""))
	case doc.ConfigMapRef == nil || !use(doc):
		return doc, nil, nil
	}
	raw, stall, err := plans.Recipe(ctx, doc, doc.ConfigMapRef)
	switch {
	case err != nil:
		return nil, nil, transient(err)
	case stall != nil && stall.Reason() == domain.StallPlanWithoutRecipe:
		return doc, nil, nil // a lost recipe leaves nothing to compare: every Upgrade then needs approval
	case stall != nil:
		return nil, nil, stalled(domain.PlanUnreadable("active plan for " + purpose + ": " + stall.Message()))
	}
	return doc, raw, nil
}

// planMissing reports whether the plan ConfigMap of digest does not exist.
func (r *Reconciler) planMissing(ctx context.Context, digest string) bool {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		return false
	}
	err = r.Reader.Get(ctx, client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: name}, &corev1.ConfigMap{})
	return apierrors.IsNotFound(err)
}

// valuesLost reports whether the values ConfigMap of the plan of digest does not exist.
func (r *Reconciler) valuesLost(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, digest string) bool {
	_, parts, _, err := planstore.NewReader(r.Reader, r.Config.OperatorNamespace, r.Config.Sealer).Parts(ctx, digest, string(cr.UID))
	for _, p := range parts {
		if err == nil && p.Kind == domain.PartValues && p.State == domain.PartLost {
			return true
		}
	}
	return false
}
