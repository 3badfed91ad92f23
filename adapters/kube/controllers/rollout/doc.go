// Package rollout is the rollout controller: it advances each RuntimeRollout one domain
// decision at a time (domain.Rollout.Advance) over the DeploymentEngine, JobRunner, Registry
// and Clock ports, then persists the outcome label, the status and the Events (RO-1..14).
// The domain decides every stall reason of a rollout; mapper.go and persist.go write it to
// status. SetupControllers (wiring.go) registers this controller, the runtime controller and
// the engine watch that adds the engine objects' watch once their kind is served (ENG-4): a new
// engine needs only a ports.DeploymentEngine and its object kind handed in by cmd.
package rollout
