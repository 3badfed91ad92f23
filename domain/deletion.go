package domain

import "fmt"

// DeletionStep is what the operator does next for a ClusterRuntime being deleted (CR-12).
type DeletionStep string

const (
	// DeletionWaitForRollout waits for the runtime's rollout in progress to end Orphaned after
	// its step in flight; the plans it reads stay until then.
	DeletionWaitForRollout DeletionStep = "WaitForRollout"
	// DeletionCleanUp deletes the operator's plans, recipes, values, kept results and Jobs.
	DeletionCleanUp DeletionStep = "CleanUp"
	// DeletionDone removes the operator's finalizer: nothing of the operator is left but the
	// rollouts (the record of what was approved) and the engine objects.
	DeletionDone DeletionStep = "Done"
)

// DeletionInput is what the cleanup of a ClusterRuntime being deleted is decided from.
type DeletionInput struct {
	// RuntimeUID is the UID of the runtime being deleted.
	RuntimeUID string
	// RolloutInProgress names the runtime's rollout without an outcome ("": none).
	RolloutInProgress string
	// Leftovers counts the operator's objects not deleted yet: plan, recipe, values and kept
	// result ConfigMaps and Jobs not already being deleted.
	Leftovers int
}

// DecideDeletion decides the next step of a ClusterRuntime's deletion and the message its
// Reconciling condition carries meanwhile. The engine objects (the GPU stack) are never part of
// it: they stay with their annotations, so a later runtime adopts them with
// spec.adoption.runtimeUID set to this runtime's UID.
func DecideDeletion(in DeletionInput) (DeletionStep, string) {
	keep := "the engine objects stay for a later runtime to adopt (spec.adoption.runtimeUID " + in.RuntimeUID + ")"
	switch {
	case in.RolloutInProgress != "":
		return DeletionWaitForRollout, fmt.Sprintf(
			"deleting: waiting for rollout %s to end Orphaned after its step in flight; %s", in.RolloutInProgress, keep)
	case in.Leftovers > 0:
		return DeletionCleanUp, fmt.Sprintf("deleting: %d plans, kept results and Jobs of the operator left; %s", in.Leftovers, keep)
	}
	return DeletionDone, "deleting: the operator's plans, kept results and Jobs are deleted; " + keep
}

// deletingMessage is why a rollout of a runtime being deleted ended.
const deletingMessage = "its ClusterRuntime is being deleted"
