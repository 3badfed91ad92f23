package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the API group and version of the operator's kinds (PLAT-3).
	GroupVersion = schema.GroupVersion{Group: "operator.aicr.run", Version: "v1alpha1"}

	// SchemeBuilder registers the operator's kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the operator's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers ClusterRuntime, RuntimeRollout and their lists under GroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &ClusterRuntime{}, &ClusterRuntimeList{}, &RuntimeRollout{}, &RuntimeRolloutList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
