package domain

// EventReason is the reason of an Event the operator records. Only this package builds one: the
// operator records no reason the domain does not name. A stall's Event uses the stall reason.
type EventReason struct{ name string }

// String returns the reason as recorded.
func (r EventReason) String() string { return r.name }

// Event reasons of the runtime, recorded on its ClusterRuntime.
var (
	// EventResolved: the spec resolved to the candidate plan the message names.
	EventResolved = EventReason{ReasonResolved}
	// EventRolloutCreated: a rollout toward the runtime's target was created.
	EventRolloutCreated = EventReason{"RolloutCreated"}
	// EventRetryHandled: a retry request was handled.
	EventRetryHandled = EventReason{"RetryHandled"}
	// EventPlanRebuilt: a lost active plan was rebuilt from the engine objects.
	EventPlanRebuilt = EventReason{"PlanRebuilt"}
	// EventPlanPartsRebuilt: the lost values or recipe ConfigMaps of a recorded plan were rebuilt.
	EventPlanPartsRebuilt = EventReason{"PlanPartsRebuilt"}
	// EventPlanResolvedAgain: a lost part of a recorded plan cannot be rebuilt; the runtime resolves anew.
	EventPlanResolvedAgain = EventReason{"PlanResolvedAgain"}
	// EventResolveStageStarted: an AICR Job of a resolve stage was created.
	EventResolveStageStarted = EventReason{"ResolveStageStarted"}
	// EventResolveStageSucceeded: a resolve stage's result was recorded.
	EventResolveStageSucceeded = EventReason{"ResolveStageSucceeded"}
	// EventResolveStageFailed: a stall stopped the resolution.
	EventResolveStageFailed = EventReason{"ResolveStageFailed"}
	// EventKeptResultIgnored: what stands at a kept result's name is not the operator's sealed
	// copy, so its Job runs again.
	EventKeptResultIgnored = EventReason{"KeptResultIgnored"}
	// EventPlanWritten: a plan ConfigMap was created or replaced.
	EventPlanWritten = EventReason{"PlanWritten"}
	// EventRetentionApplied: a retention pass deleted objects.
	EventRetentionApplied = EventReason{"RetentionApplied"}
	// EventEngineSuspended: automated sync is off on every engine object of the runtime.
	EventEngineSuspended = EventReason{"EngineSuspended"}
	// EventEngineResumed: the engine suspension was lifted and automated sync is back on.
	EventEngineResumed = EventReason{"EngineResumed"}
	// EventUnplannedEngineObjects: engine objects no plan names appeared in the operator's project.
	EventUnplannedEngineObjects = EventReason{ReasonUnplannedEngineObjects}
	// EventCleanedUp: a deleted runtime's plans, kept results and Jobs are gone.
	EventCleanedUp = EventReason{"CleanedUp"}
)

// Event reasons of a rollout, recorded on its RuntimeRollout.
var (
	// EventRolloutStarted: the rollout left Pending.
	EventRolloutStarted = EventReason{"RolloutStarted"}
	// EventRolloutApproved: an approval let the rollout start.
	EventRolloutApproved = EventReason{"RolloutApproved"}
	// EventStepStarted: a step made its mutation.
	EventStepStarted = EventReason{"StepStarted"}
	// EventStepSucceeded: a step's release is ready (or removed).
	EventStepSucceeded = EventReason{"StepSucceeded"}
	// EventAcknowledged: an acknowledgement let the rollout continue.
	EventAcknowledged = EventReason{"Acknowledged"}
	// EventValidationStarted: deployment validation started.
	EventValidationStarted = EventReason{"ValidationStarted"}
	// EventRolloutEnded: the rollout reached its outcome; the message names it.
	EventRolloutEnded = EventReason{"RolloutEnded"}
	// EventRolloutRestored: a restored rollout rebuilt its phase.
	EventRolloutRestored = EventReason{"RolloutRestored"}
	// EventStatusCorrected: a status claimed progress its approval or the engine objects do not
	// show, and was set back.
	EventStatusCorrected = EventReason{"StatusCorrected"}
)

// decisionEvent names the Event of a rollout decision by what it changed, and whether it is a
// Warning (an outcome other than Succeeded).
func decisionEvent(from, to RolloutStatus) (EventReason, bool) {
	switch {
	case to.Phase.Terminal():
		return EventRolloutEnded, to.Phase != PhaseSucceeded
	case from.Phase == PhasePending && to.Phase != PhasePending:
		return EventRolloutStarted, false
	case from.Phase == PhaseAwaitingApproval && to.Phase == PhaseProgressing:
		return EventRolloutApproved, false
	case from.Phase == PhaseAwaitingAcknowledgement && to.Phase == PhaseProgressing:
		return EventAcknowledged, false
	case to.Phase == PhaseValidating:
		return EventValidationStarted, false
	case to.Step > from.Step:
		return EventStepSucceeded, false
	case from.StepStartedAt.IsZero() && !to.StepStartedAt.IsZero():
		return EventStepStarted, false
	}
	return EventStatusCorrected, false
}
