// Package runtime is the runtime controller: it observes the ClusterRuntime, its rollouts,
// the engine and the plans, creates the rollout toward the target plan (RO-1, RO-13), rebuilds
// a lost active plan from the engine objects (PLAN-7) and derives the runtime's kstatus
// conditions Ready, Available, Reconciling, Stalled and EngineAvailable (CR-6..10), applied with
// the field manager aicr-rollout so the resolver's Resolved condition is never touched (CR-7).
// The runtime's stall reasons are decided by the domain and chosen for status in conditions.go.
package runtime
