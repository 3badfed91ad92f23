// Package resolver is the resolver controller: it turns the ClusterRuntime into a candidate
// plan by running AICR's snapshot, recipe, upgrade-check and bundle as Jobs through the
// JobRunner port, reading the bundle through the BundleReader port and writing the plan
// ConfigMaps (RES-1..8, PLAN-1..7). The order of the stages and when a kept result is reused
// are decided here (resolve.go, stage.go); each stall reason it reports is decided by the
// domain (domain.Check*, domain.ClassifyAICRExit) and written to the Resolved condition by
// status.go with the resolver's own field manager (CR-7).
package resolver
