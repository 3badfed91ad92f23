// Package shared holds what several controllers of the operator use: the plan ConfigMaps
// (PlanReader, PlanWriter and the PlanStore lock), the names of the resolver's Jobs and kept
// results, the kstatus condition helpers, Event reasons and metrics, the engine watch, the
// installation Options of the rollout side, and the AdmissionGuard that stalls every
// controller with AdmissionPolicyMissing while a chart policy is missing.
package shared
