package argocd

import (
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// NewApplicationObject returns an empty Argo CD Application as a
// client.Object, for a controller that watches Applications without
// importing Argo CD types (For, Owns or a source.Kind).
func NewApplicationObject() client.Object { return &argov1.Application{} }

// managedSelector selects the Applications the operator wrote (LabelManagedBy),
// for a cache or watch limited to them.
func managedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{wellknown.LabelManagedBy: wellknown.ManagedByValue})
}

// ownerOf returns the owner an engine object records in its annotations;
// an empty RuntimeUID means the operator did not write it.
func ownerOf(obj client.Object) ports.ReleaseOwner {
	a := obj.GetAnnotations()
	return ports.ReleaseOwner{
		RuntimeUID: a[wellknown.AnnotationRuntimeUID],
		PlanDigest: a[wellknown.AnnotationPlanDigest],
		Rollout:    a[AnnotationRollout],
	}
}
