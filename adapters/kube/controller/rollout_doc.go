// Package controller holds the operator's reconcilers. The rollout side (files rollout_*.go
// and runtime_*.go) turns the ClusterRuntime's target plan into RuntimeRollouts (RO-1),
// advances each rollout one decision at a time through the domain state machine with the real
// ports (RO-6..13) and derives the runtime's kstatus conditions Ready, Available, Reconciling,
// Stalled and EngineAvailable (CR-6..10), applied with the field manager aicr-rollout so the
// resolver's Resolved condition is never touched (CR-7).
//
// Engine watches (ENG-4): the engine's objects (Argo CD Applications) are watched once their
// kind is served. EngineWatch checks discovery periodically and adds the watch to the running
// controllers the first time the kind appears, so CRDs installed after the operator started
// are picked up without a restart.
package controller
