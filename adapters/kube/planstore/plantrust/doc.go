// Package plantrust decides whether a stored plan is the plan it claims to be (PLAN-4 to
// PLAN-6): what a plan ConfigMap claims in its labels, annotation and payload, checked against
// the plan asked for and against the releases and values it holds. It reads no API: the plan
// store's Reader, the resolver and kubectl aicr hand it the ConfigMaps they read, so it imports
// no controller-runtime package and the plugin uses it as the operator does.
//
// Every check here is unkeyed: it proves a plan is well formed and that its digests agree, not
// who wrote it, since anyone who can write the ConfigMap can recompute them (while the plans
// policy's binding is missing, for instance). The operator also requires its keyed seal over
// the plan ConfigMap (planstore.VerifyPlan); the plugin, which holds no key, cannot, and says so.
package plantrust
