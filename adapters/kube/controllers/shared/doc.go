// Package shared holds what several controllers of the operator use: the names of the
// resolver's Jobs and kept results, the predicate selecting plan ConfigMaps, the kstatus
// condition helpers, Event reasons and metrics, the engine watch, the installation Options of
// the rollout side, and the AdmissionGuard that stalls every controller with
// AdmissionPolicyMissing while a chart policy is missing. The plan ConfigMaps themselves are
// read and written through adapters/kube/planstore.
package shared
