// Package plantrust decides whether a stored plan is the plan it claims to be (PLAN-4 to
// PLAN-6): what a plan ConfigMap claims in its labels, annotation and payload, checked against
// the plan asked for and against the releases and values it holds. It reads no API: the plan
// store's Reader, the resolver and kubectl aicr hand it the ConfigMaps they read, so it imports
// no controller-runtime package and the plugin uses it as the operator does.
package plantrust
