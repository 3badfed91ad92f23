// Package v1alpha1 holds the operator.aicr.run/v1alpha1 API: ClusterRuntime (the runtime
// intent and policy of the one cluster) and RuntimeRollout (one transition between plans,
// with its set-once approval). Every rule of the API that the API server can enforce is a
// CEL rule or an OpenAPI bound on these types (PLAT-4, PLAT-8); the rules that need the
// requesting user live in the chart's ValidatingAdmissionPolicies.
//
// +kubebuilder:object:generate=true
// +groupName=operator.aicr.run
package v1alpha1
