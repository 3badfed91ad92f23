package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ApplicationStatus is what Argo CD observed of an Application.
type ApplicationStatus struct {
	// Resources are the Application's live resources.
	Resources []ResourceStatus `json:"resources,omitempty"`
	// Sync is the result of the last comparison with the source.
	Sync SyncStatus `json:"sync,omitempty"`
	// Health is the Application's aggregated health.
	Health AppHealthStatus `json:"health,omitempty"`
	// Conditions are errors and warnings Argo CD reports, such as a comparison error.
	Conditions []ApplicationCondition `json:"conditions,omitempty"`
	// ReconciledAt is when Argo CD last compared the Application with its source.
	ReconciledAt *metav1.Time `json:"reconciledAt,omitempty"`
	// OperationState is the running or last operation.
	OperationState *OperationState `json:"operationState,omitempty"`
	// SourceType is the kind of source, such as Helm.
	SourceType ApplicationSourceType `json:"sourceType,omitempty"`
}

// ApplicationSourceType is the kind of an Application source.
type ApplicationSourceType string

// ApplicationSourceTypeHelm is a Helm chart source.
const ApplicationSourceTypeHelm ApplicationSourceType = "Helm"

// SyncStatus is the result of comparing the live state with the source.
type SyncStatus struct {
	// Status is the comparison result.
	Status SyncStatusCode `json:"status"`
	// ComparedTo is the source and destination the live state was compared with.
	ComparedTo ComparedTo `json:"comparedTo,omitempty"`
	// Revision is the resolved revision compared with.
	Revision string `json:"revision,omitempty"`
}

// SyncStatusCode is the result of a comparison.
type SyncStatusCode string

// The comparison results the adapter distinguishes.
const (
	// SyncStatusCodeSynced means the live state matches the source.
	SyncStatusCodeSynced SyncStatusCode = "Synced"
	// SyncStatusCodeOutOfSync means the live state differs from the source.
	SyncStatusCodeOutOfSync SyncStatusCode = "OutOfSync"
)

// ComparedTo is what Argo CD compared the live state with.
type ComparedTo struct {
	// Source is the source compared with.
	Source ApplicationSource `json:"source,omitempty"`
	// Destination is the destination compared with.
	Destination ApplicationDestination `json:"destination"`
}

// HealthStatusCode is a health status such as Healthy, Progressing or Degraded.
type HealthStatusCode string

// AppHealthStatus is the aggregated health of an Application.
type AppHealthStatus struct {
	// Status is the health status.
	Status HealthStatusCode `json:"status,omitempty"`
}

// HealthStatus is the health of one resource.
type HealthStatus struct {
	// Status is the health status.
	Status HealthStatusCode `json:"status,omitempty"`
	// Message explains the status.
	Message string `json:"message,omitempty"`
}

// ResourceStatus is the sync and health state of one live resource.
type ResourceStatus struct {
	// Group is the resource's API group.
	Group string `json:"group,omitempty"`
	// Version is the resource's API version.
	Version string `json:"version,omitempty"`
	// Kind is the resource's kind.
	Kind string `json:"kind,omitempty"`
	// Namespace is the resource's namespace.
	Namespace string `json:"namespace,omitempty"`
	// Name is the resource's name.
	Name string `json:"name,omitempty"`
	// Status is the resource's comparison result.
	Status SyncStatusCode `json:"status,omitempty"`
	// Health is the resource's health.
	Health *HealthStatus `json:"health,omitempty"`
}

// ApplicationCondition is an error or warning Argo CD reports about an Application.
type ApplicationCondition struct {
	// Type is the condition type, such as ComparisonError (required by the API).
	Type string `json:"type"`
	// Message describes the condition.
	Message string `json:"message"`
}

// Operation is an operation (a sync) requested of Argo CD.
type Operation struct {
	// Sync is the requested sync.
	Sync *SyncOperation `json:"sync,omitempty"`
	// InitiatedBy names who requested the operation.
	InitiatedBy OperationInitiator `json:"initiatedBy,omitempty"`
	// Retry is how often a failed sync of the operation is attempted again.
	Retry RetryStrategy `json:"retry,omitempty"`
}

// RetryStrategy bounds the attempts of a failed sync.
type RetryStrategy struct {
	// Limit is how many more attempts a failed sync gets (negative: without end).
	Limit int64 `json:"limit,omitempty"`
}

// OperationInitiator is who requested an operation: a user, or Argo CD's automated sync.
type OperationInitiator struct {
	// Username is the requesting user's name.
	Username string `json:"username,omitempty"`
	// Automated is true for an operation Argo CD's automated sync started.
	Automated bool `json:"automated,omitempty"`
}

// SyncOperation is a sync operation.
type SyncOperation struct {
	// Revision is the revision to sync to (default: the spec's target revision).
	Revision string `json:"revision,omitempty"`
	// Prune deletes the live objects the revision no longer renders.
	Prune bool `json:"prune,omitempty"`
	// SyncOptions are the options of this sync, as the sync policy's.
	SyncOptions []string `json:"syncOptions,omitempty"`
}

// OperationPhase is the phase of an operation: Running, Terminating, Failed, Error or
// Succeeded.
type OperationPhase string

// OperationState is the state of the running or last operation.
type OperationState struct {
	// Operation is the operation as requested.
	Operation Operation `json:"operation"`
	// Phase is the operation's phase.
	Phase OperationPhase `json:"phase"`
	// Message explains the phase, typically an error.
	Message string `json:"message,omitempty"`
	// StartedAt is when the operation started.
	StartedAt metav1.Time `json:"startedAt"`
	// FinishedAt is when the operation finished; nil while it runs.
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}
