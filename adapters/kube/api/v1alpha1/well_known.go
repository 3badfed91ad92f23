package v1alpha1

import "github.com/NVIDIA/aicr/adapters/kube/wellknown"

// Well-known labels, annotations and names of the operator (ENG-2), defined in package
// wellknown so adapters name them without the API types; documented there.
const (
	// Prefix is wellknown.Prefix.
	Prefix = wellknown.Prefix
	// LabelRole is wellknown.LabelRole.
	LabelRole = wellknown.LabelRole
	// LabelSchemaVersion is wellknown.LabelSchemaVersion.
	LabelSchemaVersion = wellknown.LabelSchemaVersion
	// LabelRuntimeUID is wellknown.LabelRuntimeUID.
	LabelRuntimeUID = wellknown.LabelRuntimeUID
	// LabelTransition is wellknown.LabelTransition.
	LabelTransition = wellknown.LabelTransition
	// LabelOutcome is wellknown.LabelOutcome.
	LabelOutcome = wellknown.LabelOutcome
	// LabelManagedBy is wellknown.LabelManagedBy.
	LabelManagedBy = wellknown.LabelManagedBy
	// LabelResolvedBy is wellknown.LabelResolvedBy.
	LabelResolvedBy = wellknown.LabelResolvedBy
	// AnnotationFromPlanDigest is wellknown.AnnotationFromPlanDigest.
	AnnotationFromPlanDigest = wellknown.AnnotationFromPlanDigest
	// AnnotationPlanDigest is wellknown.AnnotationPlanDigest.
	AnnotationPlanDigest = wellknown.AnnotationPlanDigest
	// AnnotationRelease is wellknown.AnnotationRelease.
	AnnotationRelease = wellknown.AnnotationRelease
	// AnnotationRuntimeUID is wellknown.AnnotationRuntimeUID.
	AnnotationRuntimeUID = wellknown.AnnotationRuntimeUID
	// AnnotationPlanGraph is wellknown.AnnotationPlanGraph.
	AnnotationPlanGraph = wellknown.AnnotationPlanGraph
	// AnnotationSequence is wellknown.AnnotationSequence.
	AnnotationSequence = wellknown.AnnotationSequence
	// AnnotationStartingInventorySize is wellknown.AnnotationStartingInventorySize.
	AnnotationStartingInventorySize = wellknown.AnnotationStartingInventorySize
	// AnnotationOutcomeMessage is wellknown.AnnotationOutcomeMessage.
	AnnotationOutcomeMessage = wellknown.AnnotationOutcomeMessage
	// AnnotationContentDigest is wellknown.AnnotationContentDigest.
	AnnotationContentDigest = wellknown.AnnotationContentDigest
	// AnnotationSeal is wellknown.AnnotationSeal.
	AnnotationSeal = wellknown.AnnotationSeal
	// AnnotationEvidence is wellknown.AnnotationEvidence.
	AnnotationEvidence = wellknown.AnnotationEvidence
	// AnnotationEvidenceSeal is wellknown.AnnotationEvidenceSeal.
	AnnotationEvidenceSeal = wellknown.AnnotationEvidenceSeal
	// AnnotationResolveRequestedAt is wellknown.AnnotationResolveRequestedAt.
	AnnotationResolveRequestedAt = wellknown.AnnotationResolveRequestedAt
	// AnnotationRetryRequestedAt is wellknown.AnnotationRetryRequestedAt.
	AnnotationRetryRequestedAt = wellknown.AnnotationRetryRequestedAt
	// ManagedByValue is wellknown.ManagedByValue.
	ManagedByValue = wellknown.ManagedByValue
	// FinalizerCleanup is wellknown.FinalizerCleanup.
	FinalizerCleanup = wellknown.FinalizerCleanup
	// RolePlan is wellknown.RolePlan.
	RolePlan = wellknown.RolePlan
	// RoleRecipe is wellknown.RoleRecipe.
	RoleRecipe = wellknown.RoleRecipe
	// RoleValues is wellknown.RoleValues.
	RoleValues = wellknown.RoleValues
	// RoleSnapshot is wellknown.RoleSnapshot.
	RoleSnapshot = wellknown.RoleSnapshot
	// RoleAssessment is wellknown.RoleAssessment.
	RoleAssessment = wellknown.RoleAssessment
)
