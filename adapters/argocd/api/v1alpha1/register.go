package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// SchemeGroupVersion is the API group and version of Argo CD's Application and AppProject.
	SchemeGroupVersion = schema.GroupVersion{Group: "argoproj.io", Version: "v1alpha1"}

	// ApplicationSchemaGroupVersionKind is the group, version and kind of an Application.
	ApplicationSchemaGroupVersionKind = SchemeGroupVersion.WithKind("Application")

	// SchemeBuilder registers Application, AppProject and their lists with a runtime.Scheme.
	SchemeBuilder = (&scheme.Builder{GroupVersion: SchemeGroupVersion}).
			Register(&Application{}, &ApplicationList{}, &AppProject{}, &AppProjectList{})

	// AddToScheme adds Application, AppProject and their lists to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// ResourcesFinalizerName is Argo CD's cascade finalizer: while an Application being deleted
// carries it, Argo CD deletes the Application's live resources first.
const ResourcesFinalizerName = "resources-finalizer.argocd.argoproj.io"
