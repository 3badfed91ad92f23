// Package resolver is the resolver controller: it turns the ClusterRuntime into a candidate
// plan by running AICR's snapshot, recipe, upgrade-check and bundle as Jobs through the
// JobRunner port, reading the bundle through the BundleReader port and writing the plan
// ConfigMaps (RES-1..8, PLAN-1..7). Which stage runs next is decided by the domain
// (domain.NextResolveStage) from the facts resolve.go gathers; each stage runs in its own
// stage_*.go file, and the app's StageRunner (stage.go) reuses a kept result or runs the
// stage's Job. Each stall reason it reports is decided by the
// domain (domain.Check*, domain.ClassifyAICRExit) and written to the Resolved condition by
// status.go with the resolver's own field manager (CR-7).
package resolver
