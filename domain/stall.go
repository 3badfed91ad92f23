package domain

// StallReason is a machine-readable, CamelCase reason why the runtime or a
// rollout cannot make progress without a change to its spec or to the outside
// world. Values are surfaced verbatim as the Reason of the Stalled condition
// (and of Resolved or Ready where the requirement says so). This file is the
// only place a reason is spelled; call sites use the constants.
type StallReason string

// Discovery reasons (RES-2).
const (
	// StallNodeGroupEmpty surfaces when no Node matches the system or the accelerated placement selector.
	StallNodeGroupEmpty StallReason = "NodeGroupEmpty"
	// StallPlacementOverlap surfaces when a Node matches both the system and the accelerated selector.
	StallPlacementOverlap StallReason = "PlacementOverlap"
	// StallAcceleratedGroupHeterogeneous surfaces when accelerated Nodes differ in accelerator or OS.
	StallAcceleratedGroupHeterogeneous StallReason = "AcceleratedGroupHeterogeneous"
	// StallSnapshotIncomplete surfaces when the AICR snapshot lacks a measurement the recipe needs.
	StallSnapshotIncomplete StallReason = "SnapshotIncomplete"
	// StallCriteriaConflict surfaces when the snapshot contradicts the criteria declared in spec.criteria.
	StallCriteriaConflict StallReason = "CriteriaConflict"
)

// Render and content reasons (RES-3, PLAN-3, PLAN-5).
const (
	// StallOverridePathUnknown surfaces when an override names a component that is neither in the recipe nor an alias AICR accepts.
	StallOverridePathUnknown StallReason = "OverridePathUnknown"
	// StallInvalidOverride surfaces when an override path does not parse or its encoded value is too large.
	StallInvalidOverride StallReason = "InvalidOverride"
	// StallInvalidPlacement surfaces when a placement selector or toleration is not a valid Kubernetes label or toleration.
	StallInvalidPlacement StallReason = "InvalidPlacement"
	// StallNamespaceNotAllowed surfaces when a release targets a namespace not listed in the chart's namespaces.components.
	StallNamespaceNotAllowed StallReason = "NamespaceNotAllowed"
	// StallChartSourceUnsupported surfaces when a release's chart cannot be served from the runtime registry: its
	// repository is neither https:// nor oci://, or its upstream archive is refused (a digest that does not
	// verify, a version the registry already holds with another archive or from another upstream).
	StallChartSourceUnsupported StallReason = "ChartSourceUnsupported"
	// StallContentTooLarge surfaces when a plan exceeds 128 releases, a release ID exceeds 53 characters or the encoded plan exceeds 1 MiB.
	StallContentTooLarge StallReason = "ContentTooLarge"
	// StallConflict surfaces when a plan ConfigMap of the same name exists with another plan digest.
	StallConflict StallReason = "Conflict"
)

// AICR Job reasons (RES-4, RES-5).
const (
	// StallAICRInvalidRequest surfaces when an AICR Job fails with exit code 2 (or root cause INVALID_REQUEST).
	StallAICRInvalidRequest StallReason = "AICRInvalidRequest"
	// StallAICRNotFound surfaces when an AICR Job fails with exit code 3 (NOT_FOUND).
	StallAICRNotFound StallReason = "AICRNotFound"
	// StallAICRUnauthorized surfaces when an AICR Job fails with exit code 4 (UNAUTHORIZED).
	StallAICRUnauthorized StallReason = "AICRUnauthorized"
	// StallAICRInternal surfaces when an AICR Job fails with exit code 8 (INTERNAL) or an unknown code.
	StallAICRInternal StallReason = "AICRInternal"
	// StallAICRTimeout surfaces when an AICR Job fails with exit code 5 (TIMEOUT).
	StallAICRTimeout StallReason = "AICRTimeout"
	// StallAICRVersionMismatch surfaces when a Job reports an AICR version other than the pinned one.
	StallAICRVersionMismatch StallReason = "AICRVersionMismatch"
	// StallAICRArtifactUnsupported surfaces when an artifact's AICR version is outside >=1.0.0 <2.0.0 or its layout is legacy.
	StallAICRArtifactUnsupported StallReason = "AICRArtifactUnsupported"
	// StallJobPodNotRunning surfaces when an AICR Job's pod has waited longer than JobPodWaitBound
	// without running: unschedulable, its image not pulled, its container not configured.
	StallJobPodNotRunning StallReason = "JobPodNotRunning"
	// StallJobPodKilled surfaces when every one of JobKillAttempts runs of an AICR Job was killed
	// from outside AICR (exit code 137 or 143, OOMKilled, evicted, drained).
	StallJobPodKilled StallReason = "JobPodKilled"
	// StallJobUndeletable surfaces when an AICR Job whose deletion was requested is still
	// there after JobDeletionBound: a finalizer holds it or its pod.
	StallJobUndeletable StallReason = "JobUndeletable"
	// StallJobOutputLost surfaces when the output of every one of JobKillAttempts succeeded runs
	// of an AICR Job was lost: missing, empty, not the Job's own or without the AICR version
	// AICR records in it.
	StallJobOutputLost StallReason = "JobOutputLost"
)

// Registry and credential reasons (RES-6).
const (
	// StallRegistryCredentialsUnavailable surfaces when no registry credentials can be obtained.
	StallRegistryCredentialsUnavailable StallReason = "RegistryCredentialsUnavailable"
	// StallRegistryCredentialsStale surfaces when the registry credentials expired and were not refreshed.
	StallRegistryCredentialsStale StallReason = "RegistryCredentialsStale"
	// StallUnauthorized surfaces when the registry or the deployment engine denies the operator's identity.
	StallUnauthorized StallReason = "Unauthorized"
)

// Engine reasons (ENG-4, CR-8).
const (
	// StallEngineMissing surfaces when the deployment engine's API (Argo CD CRDs) is not installed.
	StallEngineMissing StallReason = "EngineMissing"
	// StallProjectMissing surfaces when the engine project (AppProject aicr) does not exist.
	StallProjectMissing StallReason = "ProjectMissing"
)

// Rollout and plan reasons (RO-11, PLAN-5, PLAN-6, RO-10, RO-13).
const (
	// StallAwaitingApproval surfaces when a rollout that needs approval has none yet.
	StallAwaitingApproval StallReason = "AwaitingApproval"
	// StallAwaitingAcknowledgement surfaces when a manual step waits, before its apply, for its recorded steps to be acknowledged.
	StallAwaitingAcknowledgement StallReason = "AwaitingAcknowledgement"
	// StallTransitionBlocked surfaces when AICR's upgrade-check assessed a step as blocked.
	StallTransitionBlocked StallReason = "TransitionBlocked"
	// StallInventoryDrift surfaces when the live engine inventory no longer matches the rollout's startingInventoryDigest before its first step.
	StallInventoryDrift StallReason = "InventoryDrift"
	// StallStepUnknown surfaces when a step names an operation or release the operator cannot execute.
	StallStepUnknown StallReason = "StepUnknown"
	// StallMovedReleaseMissing surfaces when a release the rollout upgrades, verifies or adopts has no engine object.
	StallMovedReleaseMissing StallReason = "MovedReleaseMissing"
	// StallEngineSuspensionRefused surfaces when the engine refuses to suspend or resume automation of a release.
	StallEngineSuspensionRefused StallReason = "EngineSuspensionRefused"
	// StallRolloutFailed surfaces when a step's sync failed, a step exceeded its action timeout or validation failed.
	StallRolloutFailed StallReason = "RolloutFailed"
	// StallRolloutExpired surfaces when the rollout's deadline or its approval's expiry passed before a step it had not started.
	StallRolloutExpired StallReason = "RolloutExpired"
	// StallRolloutRevoked surfaces when an approver revoked the approval before a step the rollout had not started.
	StallRolloutRevoked StallReason = "RolloutRevoked"
	// StallEngineObjectDrifted surfaces when an engine object of the active plan asks for another
	// spec than the plan renders for it (edited by hand) and no rollout is there to rewrite it.
	StallEngineObjectDrifted StallReason = "EngineObjectDrifted"
	// StallEngineObjectContested surfaces when something else changed a step's engine object
	// back after each of the step's StepRewriteBound rewrites: the step writes it no more.
	StallEngineObjectContested StallReason = "EngineObjectContested"
	// StallForeignObject surfaces when an engine object in the way was not created by the operator.
	StallForeignObject StallReason = "ForeignObject"
	// StallPlanOfAnotherRuntime surfaces when the target plan records another runtime UID.
	StallPlanOfAnotherRuntime StallReason = "PlanOfAnotherRuntime"
	// StallPlanWithoutRecipe surfaces when the target plan has no recipe while deployment validation is Required.
	StallPlanWithoutRecipe StallReason = "PlanWithoutRecipe"
	// StallPlanUnreadable surfaces when a plan's schema-version label, payload schemaVersion or digest annotation disagree.
	StallPlanUnreadable StallReason = "PlanUnreadable"
	// StallValidationUnavailable surfaces when validation is Required on the runtime but disabled in the chart.
	StallValidationUnavailable StallReason = "ValidationUnavailable"
	// StallAdmissionPolicyMissing surfaces when an admission policy of the chart, or its binding,
	// is missing or no longer enforces: nothing the policy guards can be trusted, so nothing moves.
	StallAdmissionPolicyMissing StallReason = "AdmissionPolicyMissing"
	// StallOutcomeUnverified surfaces when the newest rollout labelled Succeeded carries no valid
	// seal of the operator's key and the engine objects do not show its target plan live.
	StallOutcomeUnverified StallReason = "OutcomeUnverified"
)

// Change-policy reasons: a disruptive step waits before its mutation.
const (
	// StallOutsideChangeWindow surfaces when a disruptive step waits for an open change window or the end of a freeze.
	StallOutsideChangeWindow StallReason = "OutsideChangeWindow"
	// StallProtectedWorkloadsRunning surfaces when a disruptive step waits while protected workloads run on the accelerated nodes.
	StallProtectedWorkloadsRunning StallReason = "ProtectedWorkloadsRunning"
	// StallChangePolicyInvalid surfaces when the runtime's change policy cannot be evaluated (an unknown time zone).
	StallChangePolicyInvalid StallReason = "ChangePolicyInvalid"
)

// Waits reports whether the reason is a rollout waiting for a person or for time to pass (an
// approval, an acknowledgement, a change window, protected workloads), not one stuck: the
// runtime is not Stalled by it, and it goes on by itself once that happens.
func (r StallReason) Waits() bool {
	return r == StallAwaitingApproval || r == StallAwaitingAcknowledgement || r.HeldByChangePolicy()
}

// HeldByChangePolicy reports whether the reason is a disruptive step held by the runtime's change
// policy (outside a change window, or while protected workloads run).
func (r StallReason) HeldByChangePolicy() bool {
	return r == StallOutsideChangeWindow || r == StallProtectedWorkloadsRunning
}

// StallReasons returns every defined reason; tests use it to prove coverage.
func StallReasons() []StallReason {
	return []StallReason{
		StallNodeGroupEmpty, StallPlacementOverlap, StallAcceleratedGroupHeterogeneous,
		StallSnapshotIncomplete, StallCriteriaConflict,
		StallOverridePathUnknown, StallInvalidOverride, StallInvalidPlacement, StallNamespaceNotAllowed,
		StallChartSourceUnsupported, StallContentTooLarge, StallConflict,
		StallAICRInvalidRequest, StallAICRNotFound, StallAICRUnauthorized, StallAICRInternal,
		StallAICRTimeout, StallAICRVersionMismatch, StallAICRArtifactUnsupported,
		StallJobPodNotRunning, StallJobPodKilled, StallJobUndeletable, StallJobOutputLost,
		StallRegistryCredentialsUnavailable, StallRegistryCredentialsStale, StallUnauthorized,
		StallEngineMissing, StallProjectMissing,
		StallAwaitingApproval, StallAwaitingAcknowledgement, StallTransitionBlocked, StallInventoryDrift,
		StallStepUnknown, StallMovedReleaseMissing, StallEngineSuspensionRefused, StallRolloutFailed,
		StallRolloutExpired, StallRolloutRevoked, StallEngineObjectDrifted, StallEngineObjectContested, StallForeignObject, StallPlanOfAnotherRuntime,
		StallPlanWithoutRecipe, StallPlanUnreadable, StallValidationUnavailable, StallAdmissionPolicyMissing,
		StallOutcomeUnverified,
		StallOutsideChangeWindow, StallProtectedWorkloadsRunning, StallChangePolicyInvalid,
	}
}

// Stall describes why progress stopped. Only this package builds one: every reason is decided
// here, from the facts the adapters gather. Its message is human-readable, stable across
// reconciles (no timestamps) and has no trailing punctuation.
type Stall struct {
	reason  StallReason
	message string
}

// Reason returns the machine-readable reason.
func (s Stall) Reason() StallReason { return s.reason }

// Message returns the human-readable message.
func (s Stall) Message() string { return s.message }

// Reworded returns the stall with the same reason and its message set between prefix and
// suffix: the caller says where it happened and what to do, never why.
func (s Stall) Reworded(prefix, suffix string) *Stall {
	return &Stall{reason: s.reason, message: prefix + s.message + suffix}
}

// StallFromCondition reads back a stall the operator recorded as a condition's reason and
// message; nil when the reason is not one of StallReasons.
func StallFromCondition(reason, message string) *Stall {
	for _, r := range StallReasons() {
		if string(r) == reason {
			return stallf(r, message)
		}
	}
	return nil
}

// StallError carries a Stall through an error return of a pure function
// (plan building, plan validation); errors.As extracts it.
type StallError struct {
	Stall Stall
}

// Error returns the stall message.
func (e *StallError) Error() string { return string(e.Stall.reason) + ": " + e.Stall.message }

func stallf(reason StallReason, msg string) *Stall {
	return &Stall{reason: reason, message: msg}
}

func stallErr(reason StallReason, msg string) error {
	return &StallError{Stall: Stall{reason: reason, message: msg}}
}
