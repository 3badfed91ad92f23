package shared

import (
	"context"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
)

// PlanConfigMaps selects plan ConfigMaps (label role=plan) and the parts plans reference:
// values ConfigMaps (role=values) and recipe ConfigMaps (role=recipe, named planstore.RecipePrefix...),
// so a plan whose lost part was rebuilt is read again.
var PlanConfigMaps = predicate.NewPredicateFuncs(IsPlanConfigMap)

// IsPlanConfigMap reports whether o is a plan ConfigMap or a part a plan references (see
// PlanConfigMaps); a kept recipe result is not.
func IsPlanConfigMap(o client.Object) bool {
	switch o.GetLabels()[aicrv1alpha1.LabelRole] {
	case aicrv1alpha1.RolePlan, aicrv1alpha1.RoleValues:
		return true
	case aicrv1alpha1.RoleRecipe:
		return strings.HasPrefix(o.GetName(), planstore.RecipePrefix)
	}
	return false
}

// ToRuntime maps every event to the one ClusterRuntime: the controllers that reconcile it
// have one key, which the workqueue never hands to two workers at once.
func ToRuntime() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}}}
	})
}
