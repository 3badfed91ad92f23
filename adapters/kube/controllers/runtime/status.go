package runtime

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// applyStatus server-side applies the owned status fields with the field manager aicr-rollout,
// naming only the owned condition types (CR-7): applying the list read back would take over
// Resolved. Nothing is written when the owned fields already hold the wanted values, so an idle
// runtime causes no writes.
func (r *Reconciler) applyStatus(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, want runtimeStatus) error {
	st := cr.Status
	if st.ObservedGeneration == want.generation && st.ActivePlanDigest == want.active && st.TargetPlanDigest == want.target &&
		st.Rollout == want.rollout && st.HandledRequests.RetryRequestedAt == want.retryRequestedAt &&
		shared.SameConditions(st.Conditions, want.conditions, runtimeConditionTypes) {
		return nil
	}
	conds := make([]any, 0, len(want.conditions))
	for _, c := range want.conditions {
		conds = append(conds, map[string]any{
			"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message,
			"observedGeneration": c.ObservedGeneration, "lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339),
		})
	}
	status := map[string]any{"observedGeneration": want.generation, "conditions": conds}
	for k, v := range map[string]string{"activePlanDigest": want.active, "targetPlanDigest": want.target, "rollout": want.rollout} {
		if v != "" {
			status[k] = v
		}
	}
	if want.retryRequestedAt != "" {
		status["handledRequests"] = map[string]any{"retryRequestedAt": want.retryRequestedAt}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": "ClusterRuntime",
		"metadata": map[string]any{"name": cr.Name}, "status": status,
	}}
	if err := r.client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(shared.FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply ClusterRuntime status: %w", err)
	}
	return nil
}
