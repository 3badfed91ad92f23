package shared

// EventReason is the reason of an Event the rollout controllers record (OPS-1).
// Stall events use the domain's stall reason verbatim.
type EventReason string

// Event reasons of rollout transitions.
const (
	// EventRolloutCreated is recorded on the ClusterRuntime when a rollout is created.
	EventRolloutCreated EventReason = "RolloutCreated"
	// EventPlanRebuilt is recorded on the ClusterRuntime when its lost active plan is rebuilt
	// from the engine objects (PLAN-7).
	EventPlanRebuilt EventReason = "PlanRebuilt"
	// EventRolloutStarted is recorded when a rollout leaves Pending.
	EventRolloutStarted EventReason = "RolloutStarted"
	// EventRolloutApproved is recorded when an approval lets the rollout start.
	EventRolloutApproved EventReason = "RolloutApproved"
	// EventStepStarted is recorded when a step makes its mutation.
	EventStepStarted EventReason = "StepStarted"
	// EventStepSucceeded is recorded when a step's release is ready (or removed).
	EventStepSucceeded EventReason = "StepSucceeded"
	// EventAcknowledged is recorded when an acknowledgement lets the rollout continue.
	EventAcknowledged EventReason = "Acknowledged"
	// EventValidationStarted is recorded when deployment validation starts.
	EventValidationStarted EventReason = "ValidationStarted"
	// EventEngineSuspended is recorded on the ClusterRuntime when the engine objects show
	// automated sync off on every engine object of the runtime (spec.suspendEngine).
	EventEngineSuspended EventReason = "EngineSuspended"
	// EventEngineResumed is recorded on the ClusterRuntime when spec.suspendEngine was lifted
	// and automated sync is turned back on.
	EventEngineResumed EventReason = "EngineResumed"
	// EventCleanedUp is recorded on a ClusterRuntime being deleted once the operator deleted its
	// plans, kept results and Jobs and removes its finalizer (CR-12).
	EventCleanedUp EventReason = "CleanedUp"
	// EventStatusCorrected is recorded on a rollout whose status claimed progress that its spec
	// (an approval) or the engine objects (a step made) do not show, when it is set back.
	EventStatusCorrected EventReason = "StatusCorrected"
	// EventRolloutEnded is recorded when a rollout reaches its outcome; the message names it.
	EventRolloutEnded EventReason = "RolloutEnded"
	// EventRolloutRestored is recorded when a restored rollout rebuilt its phase (RO-13).
	EventRolloutRestored EventReason = "RolloutRestored"
	// EventRetryHandled is recorded on the ClusterRuntime when a retry request was handled (CR-11).
	EventRetryHandled EventReason = "RetryHandled"
	// EventRetentionApplied is recorded on the ClusterRuntime when a retention pass deleted
	// objects (RET-1..3); the message counts them by kind.
	EventRetentionApplied EventReason = "RetentionApplied"
)
