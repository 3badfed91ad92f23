package domain

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// The facts an adapter gathers and cannot judge itself: each function decides the stall the
// fact means, so a reason is picked here and nowhere else. The detail is the adapter's own
// account of the fact (an error's text), used as the message.

// RequestInvalid is an AICR request the operator cannot build from the spec (a criterion or a
// flag AICR would refuse), or one AICR refused with exit code 2.
func RequestInvalid(detail string) *Stall { return stallf(StallAICRInvalidRequest, detail) }

// ArtifactUnreadable is an AICR artifact (snapshot, recipe, bundle, report) the operator cannot
// read: missing, malformed, of another kind or of an unsupported layout.
func ArtifactUnreadable(detail string) *Stall { return stallf(StallAICRArtifactUnsupported, detail) }

// ArtifactMissing is an AICR Job of the given stage that ended without writing its artifact.
func ArtifactMissing(stage, job, file string) *Stall {
	return stallf(StallAICRArtifactUnsupported, fmt.Sprintf("aicr %s job %s wrote no %s", stage, job, file))
}

// ArtifactKindUnsupported is an artifact whose header names another API group or kind.
func ArtifactKindUnsupported(kind, apiVersion, gotKind string) *Stall {
	return stallf(StallAICRArtifactUnsupported, fmt.Sprintf(
		"%s artifact has apiVersion %q and kind %q, the operator reads aicr.run/* %s", kind, apiVersion, gotKind, kind))
}

// OverrideUnparsable is an override whose path or value does not parse.
func OverrideUnparsable(detail string) *Stall { return stallf(StallInvalidOverride, detail) }

// SnapshotUnreadable is a snapshot that lacks, or garbles, a measurement the recipe needs.
func SnapshotUnreadable(detail string) *Stall { return stallf(StallSnapshotIncomplete, detail) }

// PlanUnreadable is a stored plan whose records disagree (schema version, digest, parts) or
// cannot be decoded.
func PlanUnreadable(detail string) *Stall { return stallf(StallPlanUnreadable, detail) }

// PlanRecordConflict is a plan ConfigMap at the plan's name that holds other content.
func PlanRecordConflict(detail string) *Stall { return stallf(StallConflict, detail) }

// PlanRecipeMissing is a plan whose recipe ConfigMap is gone.
func PlanRecipeMissing(detail string) *Stall { return stallf(StallPlanWithoutRecipe, detail) }

// PlanPartTooLarge is a plan ConfigMap of the given role that would exceed MaxPlanBytes.
func PlanPartTooLarge(role, digest string, size int) *Stall {
	return stallf(StallContentTooLarge, fmt.Sprintf(
		"%s ConfigMap of plan %s has %d bytes, a ConfigMap holds at most %d", role, digest, size, MaxPlanBytes))
}

// StepsUnknown is a rollout whose steps name an operation or release this operator cannot run.
func StepsUnknown(detail string) *Stall { return stallf(StallStepUnknown, detail) }

// ChangePolicyUnreadable is a runtime change policy that cannot be evaluated.
func ChangePolicyUnreadable(detail string) *Stall {
	return stallf(StallChangePolicyInvalid, "the runtime's change policy: "+detail)
}

// SpecDrifted is the engine objects of the active plan's releases that ask for another spec
// than the plan renders for them (DriftedReleases) while no rollout is there to rewrite them:
// the runtime controller never writes an engine object, so nothing repairs them until a rollout
// writes those releases again.
func SpecDrifted(plan string, releases []ports.ReleaseRef) *Stall {
	names := make([]string, len(releases))
	for i, r := range releases {
		names[i] = r.String()
	}
	return stallf(StallEngineObjectDrifted, fmt.Sprintf(
		"the engine objects of %s ask for another spec than plan %s renders for them (edited outside the operator): "+
			"undo the edit, or roll out a plan that writes them again", strings.Join(names, ", "), plan))
}

// OutcomeUnverified is the newest rollout labelled Succeeded whose label carries no valid seal
// of the operator's key and whose success the engine objects do not show (detail says why).
func OutcomeUnverified(rollout, detail string) *Stall {
	return stallf(StallOutcomeUnverified, fmt.Sprintf("rollout %s is labelled Succeeded without the operator's seal "+
		"(written by another identity while an admission binding was missing, before the seal key existed, or under "+
		"another key) and the engine objects do not show its target plan live: %s; nothing moves until it is resolved", rollout, detail))
}
