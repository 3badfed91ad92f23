package domain

import (
	"fmt"
	"strings"
)

// ConditionStatus is a condition's status.
type ConditionStatus string

const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means the condition cannot be judged.
	ConditionUnknown ConditionStatus = "Unknown"
)

// Ready reasons of the runtime (CR-8) that are not stall reasons.
const (
	// ReasonRolledOut surfaces when the target plan is rolled out, every release is ready and validation passed.
	ReasonRolledOut = "RolledOut"
	// ReasonValidationDisabled surfaces when the target is rolled out and deployment validation is Disabled.
	ReasonValidationDisabled = "ValidationDisabled"
	// ReasonRollingOut surfaces while a rollout toward the target exists or is about to be created.
	ReasonRollingOut = "RollingOut"
	// ReasonNotReady surfaces when the target is rolled out but a release is not ready.
	ReasonNotReady = "NotReady"
	// ReasonNoActivePlan surfaces when nothing is rolled out and there is no target yet.
	ReasonNoActivePlan = "NoActivePlan"
	// ReasonPaused surfaces when spec.paused is true.
	ReasonPaused = "Paused"
	// ReasonEngineSuspended surfaces when the engine-suspension switch is on and the engine
	// objects show automated sync off on every engine object of the runtime.
	ReasonEngineSuspended = "EngineSuspended"
	// ReasonDeleting surfaces while the ClusterRuntime is being deleted.
	ReasonDeleting = "Deleting"
	// ReasonResolving is the Resolved reason while AICR Jobs run; it never stalls the runtime.
	ReasonResolving = "Resolving"
	// ReasonResolved is the Resolved reason when the spec resolved to the candidate plan.
	ReasonResolved = "Resolved"
	// ReasonEveryEngineObjectPlanned is the EngineObjectsPlanned reason when every engine object
	// in the operator's project is a planned release's.
	ReasonEveryEngineObjectPlanned = "EveryEngineObjectPlanned"
	// ReasonUnplannedEngineObjects is the EngineObjectsPlanned reason when engine objects in the
	// operator's project are no planned release's (created out of band).
	ReasonUnplannedEngineObjects = "UnplannedEngineObjects"
)

// Condition is an engine-neutral status condition.
type Condition struct {
	Status  ConditionStatus
	Reason  string
	Message string
}

// RolloutView is what Ready needs to know about the rollout toward the target.
type RolloutView struct {
	Name   string
	Phase  Phase
	Step   int
	Steps  []Step
	Run    string
	Stall  *Stall
	Exists bool
}

// ReadyInput is the observation ReadyCondition derives Ready from.
type ReadyInput struct {
	Deleting bool
	Paused   bool
	// Suspension is the engine-suspension decision while spec.suspendEngine is set (nil: not set).
	Suspension *Suspension
	// SuspensionStall is the engine's refusal to suspend or resume an engine object.
	SuspensionStall    *Stall
	EngineStall        *Stall
	PlanStall          *Stall
	ActivePlanDigest   string
	TargetPlanDigest   string
	Rollout            RolloutView
	ReleasesReady      bool
	ValidationDisabled bool
	// DriftStall is EngineObjectDrifted: an engine object of the active plan asks for another
	// spec than the plan renders and no rollout rewrites it (SpecDrifted).
	DriftStall *Stall
}

// ReadyCondition derives the runtime's Ready condition (CR-8). The checks
// run in order; the first that applies decides.
func ReadyCondition(in ReadyInput) Condition {
	switch {
	case in.Deleting:
		return Condition{ConditionFalse, ReasonDeleting, "the ClusterRuntime is being deleted"}
	case in.EngineStall != nil:
		return Condition{ConditionFalse, string(in.EngineStall.Reason()), in.EngineStall.Message()}
	case in.PlanStall != nil:
		return Condition{ConditionFalse, string(in.PlanStall.Reason()), in.PlanStall.Message()}
	case in.SuspensionStall != nil:
		return Condition{ConditionFalse, string(in.SuspensionStall.Reason()), in.SuspensionStall.Message()}
	case in.Paused:
		return Condition{ConditionFalse, ReasonPaused, "the runtime is paused (spec.paused)"}
	case in.Suspension != nil && in.Suspension.Holds():
		return Condition{ConditionFalse, ReasonEngineSuspended, in.Suspension.Message()}
	case in.TargetPlanDigest == "" && in.ActivePlanDigest == "":
		return Condition{ConditionFalse, ReasonNoActivePlan, "no plan is rolled out yet"}
	case in.TargetPlanDigest != "" && in.TargetPlanDigest != in.ActivePlanDigest:
		return Condition{ConditionFalse, ReasonRollingOut, RolloutProgressMessage(in.Rollout, in.TargetPlanDigest)}
	case in.DriftStall != nil:
		return Condition{ConditionFalse, string(in.DriftStall.Reason()), in.DriftStall.Message()}
	case !in.ReleasesReady:
		return Condition{ConditionFalse, ReasonNotReady, "a release of plan " + in.ActivePlanDigest + " is not ready"}
	case in.ValidationDisabled:
		return Condition{ConditionTrue, ReasonValidationDisabled, "plan " + in.ActivePlanDigest + " rolled out, validation disabled"}
	}
	return Condition{ConditionTrue, ReasonRolledOut, "plan " + in.ActivePlanDigest + " rolled out and validated"}
}

// RolloutProgressMessage names the rollout and where it is (CR-8).
func RolloutProgressMessage(v RolloutView, targetPlanDigest string) string {
	switch {
	case !v.Exists:
		return NotRolledOutMessage(targetPlanDigest)
	case v.Stall != nil && v.Stall.Reason().HeldByChangePolicy():
		return v.Stall.Message()
	case v.Stall != nil && v.Stall.Reason() != StallAwaitingApproval:
		return StalledMessage(v.Name, v.Stall.Message())
	case v.Phase == PhaseAwaitingApproval:
		return AwaitingApprovalMessage(v.Name)
	case v.Phase == PhaseValidating:
		return ValidationMessage(v.Name, v.Run)
	case v.Step < len(v.Steps):
		return StepMessage(v.Name, v.Step, len(v.Steps), v.Steps[v.Step])
	}
	return "rollout " + v.Name + " " + string(v.Phase)
}

// StalledFromResolved applies CR-10: Resolved=False with any reason other than
// Resolving makes the runtime Stalled with the same reason and message.
func StalledFromResolved(resolved Condition) *Stall {
	if resolved.Status != ConditionFalse || resolved.Reason == ReasonResolving || resolved.Reason == "" {
		return nil
	}
	return stallf(StallReason(resolved.Reason), resolved.Message)
}

// ReleaseAvailability is one release's observation for Available (CR-9).
type ReleaseAvailability struct {
	ID      string
	Healthy bool
	// Drifted: its engine object asks for another spec than the plan it records renders for it
	// (edited outside the operator), whatever its health.
	Drifted bool
	// Counted: the release is in the active plan, or a rollout (in progress
	// or failed) already moved it to another plan.
	Counted bool
	// Removing: its Remove step started.
	Removing bool
	// Installing: a rollout installs it and has not succeeded.
	Installing bool
	// InFlight: it is the release of the step in flight.
	InFlight bool
}

// AvailableCondition derives Available (CR-9). The release of the step in
// flight leaves Available as it was (previous) while it progresses, as a
// rolling update leaves a Deployment available. A drifted release is not available at its
// plan, healthy or not.
func AvailableCondition(releases []ReleaseAvailability, previous ConditionStatus) Condition {
	for _, r := range releases {
		if !r.Counted || r.Removing || r.Installing {
			continue
		}
		if r.InFlight {
			if previous == ConditionFalse {
				return Condition{ConditionFalse, "ReleaseUnavailable", "release " + r.ID + " is progressing"}
			}
			continue
		}
		if r.Drifted {
			return Condition{ConditionFalse, "ReleaseUnavailable", "release " + r.ID + " asks for another spec than its plan renders"}
		}
		if !r.Healthy {
			return Condition{ConditionFalse, "ReleaseUnavailable", "release " + r.ID + " is not healthy"}
		}
	}
	return Condition{ConditionTrue, "ReleasesHealthy", "every counted release is healthy at the plan it carries"}
}

// maxUnplannedNamed is how many unplanned engine objects a message names.
const maxUnplannedNamed = 10

// UnplannedCondition derives EngineObjectsPlanned from the names of the engine objects in the
// operator's project that no active or target plan names (DeploymentEngine.Unplanned): such an
// object deploys through the operator's project, outside every plan and approval.
func UnplannedCondition(names []string) Condition {
	if len(names) == 0 {
		return Condition{ConditionTrue, ReasonEveryEngineObjectPlanned,
			"every engine object in the operator's project is a planned release's"}
	}
	shown := names[:min(len(names), maxUnplannedNamed)]
	msg := fmt.Sprintf("%d engine objects in the operator's project are no planned release's (created out of band): %s",
		len(names), strings.Join(shown, ", "))
	if len(shown) < len(names) {
		msg += ", ..."
	}
	return Condition{ConditionFalse, ReasonUnplannedEngineObjects, msg}
}
