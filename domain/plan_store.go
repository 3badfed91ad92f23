package domain

import "fmt"

// StoredPlan is what the resolver sees of an existing plan ConfigMap.
type StoredPlan struct {
	// DigestAnnotation is the plan-digest annotation.
	DigestAnnotation string
	// SchemaLabel is the schema-version label.
	SchemaLabel string
	// PayloadSchema is schemaVersion in the payload.
	PayloadSchema int
	// PayloadDigest is desiredStateDigest in the payload.
	PayloadDigest string
	// RuntimeUID is the runtime UID the payload records.
	RuntimeUID string
	// Source is resolved or rebuilt.
	Source PlanSource
}

// PlanWrite is the resolver's decision about a plan ConfigMap (PLAN-5).
type PlanWrite string

const (
	// PlanWriteKeep means the existing plan is the wanted one: success.
	PlanWriteKeep PlanWrite = "Keep"
	// PlanWriteReplace means the existing plan is deleted and written again.
	PlanWriteReplace PlanWrite = "Replace"
)

// DecidePlanWrite applies PLAN-5 after a create returned AlreadyExists: a
// different digest is a Conflict; a plan recording another runtime UID is
// replaced; a resolved plan replaces a rebuilt one; a rebuilt plan never
// replaces a resolved one; otherwise the existing plan is kept.
func DecidePlanWrite(existing StoredPlan, want *Plan) (PlanWrite, *Stall) {
	switch {
	case existing.DigestAnnotation != want.Digest:
		return "", stallf(StallConflict, fmt.Sprintf(
			"plan ConfigMap for %s exists with plan digest %s", want.Digest, existing.DigestAnnotation))
	case existing.RuntimeUID != want.RuntimeUID:
		return PlanWriteReplace, nil
	case existing.Source == SourceRebuilt && want.Source == SourceResolved:
		return PlanWriteReplace, nil
	}
	return PlanWriteKeep, nil
}

// CheckPlanReadable applies PLAN-6 (the schema label is a schema this operator
// reads and equals the payload's schemaVersion, the payload digest equals the
// annotation) and PLAN-5 (the plan records this runtime's UID).
func CheckPlanReadable(p StoredPlan, runtimeUID string) *Stall {
	switch {
	case !PlanSchemaReadable(p):
		return stallf(StallPlanUnreadable, fmt.Sprintf(
			"plan %s has schema label %q and payload schema %d, this operator reads %s",
			p.DigestAnnotation, p.SchemaLabel, p.PayloadSchema, ReadablePlanSchemas()))
	case p.PayloadDigest != p.DigestAnnotation:
		return stallf(StallPlanUnreadable, fmt.Sprintf(
			"plan payload digest %s differs from its annotation %s", p.PayloadDigest, p.DigestAnnotation))
	case p.RuntimeUID != runtimeUID:
		return stallf(StallPlanOfAnotherRuntime, fmt.Sprintf(
			"plan %s records runtime %s, not %s", p.DigestAnnotation, p.RuntimeUID, runtimeUID))
	}
	return nil
}

// PlanSchemaReadable reports whether p's schema-version label equals its payload's
// schemaVersion and names a schema this operator reads (PLAN-1, PLAN-6).
func PlanSchemaReadable(p StoredPlan) bool {
	return p.SchemaLabel == fmt.Sprint(p.PayloadSchema) && ReadablePlanSchema(p.PayloadSchema)
}

// ReadablePlanSchema reports whether this operator reads plan documents of
// schema v (OldestPlanSchemaVersion to PlanSchemaVersion, PLAN-1).
func ReadablePlanSchema(v int) bool {
	return v >= OldestPlanSchemaVersion && v <= PlanSchemaVersion
}

// ReadablePlanSchemas names the plan document schemas this operator reads,
// for messages: "1 to 2".
func ReadablePlanSchemas() string {
	return fmt.Sprintf("%d to %d", OldestPlanSchemaVersion, PlanSchemaVersion)
}

// CheckNamespaces refuses a plan with a release in a namespace the
// installation does not list (chart value namespaces.components, RES-3).
func CheckNamespaces(p *Plan, allowed []string) *Stall {
	ok := make(map[string]bool, len(allowed))
	for _, n := range allowed {
		ok[n] = true
	}
	for _, r := range p.Releases {
		if !ok[r.Namespace] {
			return stallf(StallNamespaceNotAllowed, fmt.Sprintf(
				"release %s targets namespace %s, which namespaces.components does not list", r.ID, r.Namespace))
		}
	}
	return nil
}
