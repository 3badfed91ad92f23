// Package v1alpha1 holds the subset of Argo CD's argoproj.io/v1alpha1 API (Application and
// AppProject) that the Argo CD adapter reads and writes, wire-compatible with Argo CD v3.2
// (github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1): every field carries the
// JSON name and omitempty of its upstream counterpart.
//
// The operator keeps its own types instead of importing Argo CD's module, which pulls about
// 1,300 packages (and 44 MB) into the binary for a handful of structs. Fields of real objects
// that are not modelled here are dropped on decode, so the adapter writes Applications with a
// merge patch of the fields it owns, never with an update of a whole object it read. The
// objects the adapter owns whole (source, Helm options, destination, sync policy and its
// automation) keep their unmodelled members in Unmodeled instead, so a write that rebuilds
// one removes what the adapter did not write (ENG-1).
// test/argocdcompat proves the compatibility against the upstream types.
//
// Like the upstream package, it must not leave adapters/argocd (and the test helpers).
//
// +kubebuilder:object:generate=true
// +groupName=argoproj.io
package v1alpha1
