package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// SchemeGroupVersion is the API group and version of Argo CD's Application and AppProject.
	SchemeGroupVersion = schema.GroupVersion{Group: "argoproj.io", Version: "v1alpha1"}

	// ApplicationSchemaGroupVersionKind is the group, version and kind of an Application.
	ApplicationSchemaGroupVersionKind = SchemeGroupVersion.WithKind("Application")

	// SchemeBuilder registers Application, AppProject and their lists with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds Application, AppProject and their lists to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers Application, AppProject and their lists under SchemeGroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &Application{}, &ApplicationList{}, &AppProject{}, &AppProjectList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}

// ResourcesFinalizerName is Argo CD's cascade finalizer: while an Application being deleted
// carries it, Argo CD deletes the Application's live resources first.
const ResourcesFinalizerName = "resources-finalizer.argocd.argoproj.io"
