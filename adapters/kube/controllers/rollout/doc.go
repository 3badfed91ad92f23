// Package rollout is the rollout controller: it advances each RuntimeRollout one domain
// decision at a time (domain.Rollout.Advance) over the DeploymentEngine, JobRunner, Registry
// and Clock ports, then persists the outcome label, the status and the Events (RO-1..14).
// The domain decides every stall reason of a rollout; mapper.go and persist.go write it to
// status. Register registers this controller and returns the target the engine watch adds the
// engine objects' watch to once their kind is served (shared.AddEngineWatch, ENG-4); cmd wires
// it with the runtime controller, so a new engine needs only a ports.DeploymentEngine and its
// object kind handed in by cmd.
package rollout
