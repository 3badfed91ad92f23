package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppProject is an Argo CD project: which sources its Applications may use and where they
// may deploy. The adapter only checks that it exists.
//
// +kubebuilder:object:root=true
type AppProject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// Spec is the project's policy; the API requires it.
	Spec AppProjectSpec `json:"spec"`
}

// AppProjectList is a list of AppProjects.
//
// +kubebuilder:object:root=true
type AppProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	// Items are the AppProjects.
	Items []AppProject `json:"items"`
}

// AppProjectSpec is the policy of an AppProject. The adapter reads none of it, so no field
// is modelled: an AppProject written with these types has an empty spec.
type AppProjectSpec struct{}
