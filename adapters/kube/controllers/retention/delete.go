package retention

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// deleteAll deletes doomed in order, each by name with its UID and resourceVersion as
// preconditions, so an object recreated or changed since it was listed stays. An object
// already gone is fine. Each deletion is logged and counted in deleted by kind. conflicted
// reports an object that changed, so the pass runs again soon.
func (r *Reconciler) deleteAll(ctx context.Context, doomed []doomedObject, deleted map[string]int) (conflicted bool, err error) {
	log := ctrl.LoggerFrom(ctx).WithName("retention")
	var errs []error
	for _, d := range doomed {
		err := r.client.Delete(ctx, r.object(d), client.Preconditions{UID: &d.meta.UID, ResourceVersion: &d.meta.ResourceVersion})
		switch {
		case err == nil:
			deleted[d.kind]++
			r.metrics.Retired.WithLabelValues(d.kind).Inc()
			log.Info("deleted", "kind", d.kind, "name", d.meta.Name, "rule", d.rule)
		case apierrors.IsNotFound(err):
		case apierrors.IsConflict(err):
			conflicted = true
			log.Info("kept: changed since it was listed", "kind", d.kind, "name", d.meta.Name, "rule", d.rule)
		default:
			errs = append(errs, fmt.Errorf("delete %s %s: %w", d.kind, d.meta.Name, err))
		}
	}
	return conflicted, errors.Join(errs...)
}

// object is the object to delete: a RuntimeRollout, or a ConfigMap of the operator namespace.
func (r *Reconciler) object(d doomedObject) client.Object {
	meta := metav1.ObjectMeta{Name: d.meta.Name}
	if d.kind == kindRollout {
		return &aicrv1alpha1.RuntimeRollout{ObjectMeta: meta}
	}
	meta.Namespace = r.namespace
	return &corev1.ConfigMap{ObjectMeta: meta}
}

// deletedSummary says how many objects of each kind were deleted: "2 plan, 1 rollout".
func deletedSummary(deleted map[string]int) string {
	kinds := make([]string, 0, len(deleted))
	for k := range deleted {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", deleted[k], k)
	}
	return strings.Join(parts, ", ")
}
