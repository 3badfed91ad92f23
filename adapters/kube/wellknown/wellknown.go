// Package wellknown holds the operator's label and annotation keys and their fixed values as
// plain strings. It imports nothing, so every adapter, driving or driven, names the keys
// without importing the kube API types; aicrv1alpha1 re-exports them for API users.
package wellknown

// Labels, annotations and names of the operator (ENG-2).
// Labels select objects for watches; annotations plus the recorded runtime UID authorize
// mutation, a label match alone never does.
const (
	// Prefix is the prefix of every operator label and annotation key.
	Prefix = "operator.aicr.run/"

	// LabelRole says what an operator-owned ConfigMap holds (RolePlan, RoleRecipe, RoleValues, ...).
	// The chart's PLAN-8 admission policy covers every ConfigMap carrying it.
	LabelRole = Prefix + "role"
	// LabelSchemaVersion is the plan document's schemaVersion (PLAN-6).
	LabelSchemaVersion = Prefix + "schema-version"
	// LabelRuntimeUID carries the UID of the runtime an object belongs to.
	LabelRuntimeUID = Prefix + "runtime-uid"
	// LabelTransition carries the 16-hex transition of a rollout's name (RO-1).
	LabelTransition = Prefix + "transition"
	// LabelOutcome is set once, by the operator, when a rollout ends (RO-6).
	LabelOutcome = Prefix + "outcome"
	// LabelManagedBy marks engine objects and Jobs the operator watches.
	LabelManagedBy = Prefix + "managed-by"

	// LabelResolvedBy names the bundle Job whose output a plan records, so a later
	// resolution finds the result after the Job is deleted.
	LabelResolvedBy = Prefix + "resolved-by"

	// AnnotationFromPlanDigest is the active plan an assessment compares against; its
	// plan-digest annotation is the plan it assesses.
	AnnotationFromPlanDigest = Prefix + "from-plan-digest"
	// AnnotationPlanDigest is the desiredStateDigest of the plan an object carries or is.
	AnnotationPlanDigest = Prefix + "plan-digest"
	// AnnotationRelease is the plan release ID of an engine object.
	AnnotationRelease = Prefix + "release"
	// AnnotationRuntimeUID is the UID of the runtime that created an object; with the plan
	// digest it authorizes mutation.
	AnnotationRuntimeUID = Prefix + "runtime-uid"
	// AnnotationPlanGraph is the plan graph an engine object carries, so a plan can be rebuilt
	// from live state (PLAN-7).
	AnnotationPlanGraph = Prefix + "plan-graph"
	// AnnotationSequence is a rollout's place among its runtime's rollouts: one more than the
	// highest when the operator created it. Unlike creationTimestamp it survives a restore, so
	// the newest Succeeded rollout, whose target is the active plan, is still known (RO-13).
	AnnotationSequence = Prefix + "sequence"
	// AnnotationStartingInventorySize is the number of engine objects in a rollout's starting
	// inventory, set by the operator when it creates the rollout: the spec records only their
	// digest, and an approver decides on both (kubectl aicr describe).
	AnnotationStartingInventorySize = Prefix + "starting-inventory-size"
	// AnnotationOutcomeMessage is why a rollout ended, set by the operator with the outcome
	// label, so a status lost to a crash before it was written, or to a restore, keeps it (RO-6).
	AnnotationOutcomeMessage = Prefix + "outcome-message"
	// AnnotationContentDigest is the digest of a kept result's data (sealed by the Job runner), checked
	// before the operator uses the result again, so a result is used only as it was written.
	AnnotationContentDigest = Prefix + "content-digest"
	// AnnotationSeal is the operator's keyed seal (ports.Sealer) of the state an object carries
	// that the operator trusts when it reads it back: a kept result's content, a rollout's outcome.
	// A missing seal or one that does not verify is never trusted.
	AnnotationSeal = Prefix + "seal"
	// AnnotationEvidence is set once, by the operator, to a validated rollout's evidence digest.
	AnnotationEvidence = Prefix + "evidence"
	// AnnotationEvidenceSeal is the operator's keyed seal (ports.Sealer) of a rollout's evidence
	// annotation, made when the operator sets it: evidence without a seal that verifies is never
	// reported as the operator's.
	AnnotationEvidenceSeal = Prefix + "evidence-seal"
	// AnnotationResolveRequestedAt asks for a new resolution with a new snapshot (CR-11).
	AnnotationResolveRequestedAt = Prefix + "resolve-requested-at"
	// AnnotationRetryRequestedAt asks to retry a failed, expired or revoked rollout (CR-11).
	AnnotationRetryRequestedAt = Prefix + "retry-requested-at"

	// ManagedByValue is the value of LabelManagedBy.
	ManagedByValue = "aicr-operator"
	// FinalizerCleanup is the operator's finalizer on the ClusterRuntime (CR-12).
	FinalizerCleanup = Prefix + "cleanup"
)

// Values of LabelRole.
const (
	// RolePlan marks a plan ConfigMap (PLAN-1).
	RolePlan = "plan"
	// RoleRecipe marks a recipe ConfigMap (PLAN-3).
	RoleRecipe = "recipe"
	// RoleValues marks a values ConfigMap (PLAN-3).
	RoleValues = "values"
	// RoleSnapshot marks a kept snapshot copy (RES-7).
	RoleSnapshot = "snapshot"
	// RoleAssessment marks a kept upgrade-check report copy (RES-7).
	RoleAssessment = "assessment"
)
