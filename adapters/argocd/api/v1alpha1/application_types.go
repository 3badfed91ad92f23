package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Application is an Argo CD Application: a source of manifests deployed to a destination.
//
// +kubebuilder:object:root=true
type Application struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// Spec is what to deploy where, and how to sync it.
	Spec ApplicationSpec `json:"spec"`
	// Status is what Argo CD observed, written by Argo CD.
	Status ApplicationStatus `json:"status,omitempty"`
	// Operation is an operation requested and not yet started by Argo CD.
	Operation *Operation `json:"operation,omitempty"`
}

// ApplicationList is a list of Applications.
//
// +kubebuilder:object:root=true
type ApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	// Items are the Applications.
	Items []Application `json:"items"`
}

// ApplicationSpec is the desired state of an Application.
type ApplicationSpec struct {
	// Source is the one source of the manifests or chart.
	Source *ApplicationSource `json:"source,omitempty"`
	// Destination is the cluster and namespace to deploy to.
	Destination ApplicationDestination `json:"destination"`
	// Project is the AppProject the Application belongs to.
	Project string `json:"project"`
	// SyncPolicy controls when and how Argo CD syncs.
	SyncPolicy *SyncPolicy `json:"syncPolicy,omitempty"`
	// Sources are the sources of a multi-source Application; Argo CD ignores Source when set.
	Sources []ApplicationSource `json:"sources,omitempty"`
}

// ApplicationSource is where the manifests or the Helm chart come from.
type ApplicationSource struct {
	// RepoURL is the repository (Git, Helm or oci://) holding the manifests or chart.
	RepoURL string `json:"repoURL"`
	// Path is the directory inside the repository (the artifact root "." for an OCI chart).
	Path string `json:"path,omitempty"`
	// TargetRevision is the revision to sync: a chart version, tag or digest.
	TargetRevision string `json:"targetRevision,omitempty"`
	// Helm holds the Helm options.
	Helm *ApplicationSourceHelm `json:"helm,omitempty"`
	// Chart is the chart name in a Helm repository.
	Chart string `json:"chart,omitempty"`
	// Unmodeled are the members Argo CD's type has and this one does not model.
	Unmodeled Unmodeled `json:"-"`
}

// ApplicationSourceHelm holds the Helm options of a source.
type ApplicationSourceHelm struct {
	// ReleaseName is the Helm release name (default: the Application name).
	ReleaseName string `json:"releaseName,omitempty"`
	// Values are Helm values as a YAML string; ValuesObject takes precedence.
	Values string `json:"values,omitempty" patchStrategy:"replace"`
	// ValuesObject are Helm values as an object.
	ValuesObject *runtime.RawExtension `json:"valuesObject,omitempty"`
	// Unmodeled are the members Argo CD's type has and this one does not model.
	Unmodeled Unmodeled `json:"-"`
}

// ApplicationDestination is the cluster and namespace an Application deploys to.
type ApplicationDestination struct {
	// Server is the API server URL of the target cluster.
	Server string `json:"server,omitempty"`
	// Namespace is the namespace of namespaced resources without one.
	Namespace string `json:"namespace,omitempty"`
	// Unmodeled are the members Argo CD's type has and this one does not model.
	Unmodeled Unmodeled `json:"-"`
}

// SyncPolicy controls when and how Argo CD syncs an Application.
type SyncPolicy struct {
	// Automated, when set, keeps the Application synced to its target revision.
	Automated *SyncPolicyAutomated `json:"automated,omitempty"`
	// SyncOptions are the Application-wide sync options, such as CreateNamespace=true.
	SyncOptions SyncOptions `json:"syncOptions,omitempty"`
	// Unmodeled are the members Argo CD's type has and this one does not model.
	Unmodeled Unmodeled `json:"-"`
}

// SyncPolicyAutomated is automated sync.
type SyncPolicyAutomated struct {
	// Prune deletes resources no longer in the source.
	Prune bool `json:"prune,omitempty"`
	// SelfHeal reverts live changes to the resources.
	SelfHeal bool `json:"selfHeal,omitempty"`
	// Enabled turns automated sync off when false while keeping its settings.
	Enabled *bool `json:"enabled,omitempty"`
	// Unmodeled are the members Argo CD's type has and this one does not model.
	Unmodeled Unmodeled `json:"-"`
}

// SyncOptions are sync options in Argo CD's "Name=value" form.
type SyncOptions []string
