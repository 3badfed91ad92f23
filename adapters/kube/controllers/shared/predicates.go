package shared

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
)

// PlanConfigMaps selects plan ConfigMaps (label role=plan).
var PlanConfigMaps = predicate.NewPredicateFuncs(func(o client.Object) bool {
	return o.GetLabels()[aicrv1alpha1.LabelRole] == aicrv1alpha1.RolePlan
})
