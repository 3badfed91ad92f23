package resolver

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// applyResolved applies, with the resolver's field manager, exactly the
// Resolved condition plus status.candidatePlanDigest and
// status.handledRequests.resolveRequestedAt (CR-7): never the condition list
// read back, so the rollout controller's conditions keep their owner. The
// previous values of the owned fields are re-applied when unchanged, because
// an apply that omits a field it owns removes it. Nothing is sent when
// nothing changed; a stall records an Event once, when it first appears.
func (r *Reconciler) applyResolved(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, out *outcome) error {
	candidate := cr.Status.CandidatePlanDigest
	if out.candidate != "" {
		candidate = out.candidate
	}
	handled := cr.Status.HandledRequests.ResolveRequestedAt
	if out.handled != "" {
		handled = out.handled
	}
	msg := domain.Truncate(out.message)
	same, prev := sameResolved(cr, out, msg)
	if same && candidate == cr.Status.CandidatePlanDigest && handled == cr.Status.HandledRequests.ResolveRequestedAt {
		return nil
	}
	if !same {
		// The cache may lag an apply of an earlier reconcile: judge the transition (and its
		// Event, recorded once) from the live object.
		live := &aicrv1alpha1.ClusterRuntime{}
		if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(cr), live); err != nil {
			return fmt.Errorf("read the runtime: %w", err)
		}
		same, prev = sameResolved(live, out, msg)
	}
	ltt := r.Clock.Now()
	if prev != nil && prev.Status == out.status {
		ltt = prev.LastTransitionTime.Time
	}
	status := map[string]any{"conditions": []any{map[string]any{
		"type": aicrv1alpha1.ConditionResolved, "status": string(out.status), "reason": out.reason,
		"message": msg, "observedGeneration": cr.Generation,
		"lastTransitionTime": ltt.UTC().Truncate(time.Second).Format(time.RFC3339),
	}}}
	if candidate != "" {
		status["candidatePlanDigest"] = candidate
	}
	if handled != "" {
		status["handledRequests"] = map[string]any{"resolveRequestedAt": handled}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": "ClusterRuntime",
		"metadata": map[string]any{"name": cr.Name}, "status": status,
	}}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply Resolved condition: %w", err)
	}
	if !same {
		r.recordTransition(cr, out, msg)
	}
	return nil
}

func (r *Reconciler) recordTransition(cr *aicrv1alpha1.ClusterRuntime, out *outcome, msg string) {
	switch {
	case out.status == metav1.ConditionTrue:
		r.event(cr, corev1.EventTypeNormal, domain.EventResolved, "%s", msg)
	case out.reason != domain.ReasonResolving:
		r.event(cr, corev1.EventTypeWarning, domain.EventResolveStageFailed, "%s: %s", out.reason, msg)
	}
}

// sameResolved reports whether cr already carries the Resolved condition of out, and returns it.
func sameResolved(cr *aicrv1alpha1.ClusterRuntime, out *outcome, msg string) (bool, *metav1.Condition) {
	prev := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionResolved)
	return prev != nil && prev.Status == out.status && prev.Reason == out.reason && prev.Message == msg &&
		prev.ObservedGeneration == cr.Generation, prev
}
