package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Phase is where a rollout is.
// +kubebuilder:validation:Enum=Pending;AwaitingApproval;Progressing;AwaitingAcknowledgement;Validating;Succeeded;Failed;Expired;Revoked;Superseded;Orphaned
// +kubebuilder:validation:MaxLength=23
type Phase string

// Rollout phases; the last six are outcomes, mirrored in the outcome label.
const (
	// PhasePending is a rollout that has not started a step.
	PhasePending Phase = "Pending"
	// PhaseAwaitingApproval is a rollout that needs an approval before its next step.
	PhaseAwaitingApproval Phase = "AwaitingApproval"
	// PhaseProgressing is a rollout running its steps.
	PhaseProgressing Phase = "Progressing"
	// PhaseAwaitingAcknowledgement is a rollout paused before a manual step's apply (RO-9).
	PhaseAwaitingAcknowledgement Phase = "AwaitingAcknowledgement"
	// PhaseValidating is a rollout running deployment validation (RO-10).
	PhaseValidating Phase = "Validating"
	// PhaseSucceeded is a rollout that finished (and validated when required).
	PhaseSucceeded Phase = "Succeeded"
	// PhaseFailed is a rollout whose step or validation failed.
	PhaseFailed Phase = "Failed"
	// PhaseExpired is a rollout that reached its deadline or whose approval expired.
	PhaseExpired Phase = "Expired"
	// PhaseRevoked is a rollout whose approval was revoked.
	PhaseRevoked Phase = "Revoked"
	// PhaseSuperseded is a rollout whose target moved before it finished.
	PhaseSuperseded Phase = "Superseded"
	// PhaseOrphaned is a rollout whose runtime is gone.
	PhaseOrphaned Phase = "Orphaned"
)

// ReleaseState is what the operator observed of one step's release.
// +kubebuilder:validation:Enum=Pending;InFlight;Ready;Failed;Removed;Skipped;Unknown
// +kubebuilder:validation:MaxLength=8
type ReleaseState string

// Release states recorded in status.releases.
const (
	// ReleasePending is a release whose step has not started.
	ReleasePending ReleaseState = "Pending"
	// ReleaseInFlight is a release whose step made its mutation and is not ready yet.
	ReleaseInFlight ReleaseState = "InFlight"
	// ReleaseReady is a release whose step finished: synced to the plan and healthy.
	ReleaseReady ReleaseState = "Ready"
	// ReleaseFailed is a release whose step failed.
	ReleaseFailed ReleaseState = "Failed"
	// ReleaseRemoved is a release a Remove step removed.
	ReleaseRemoved ReleaseState = "Removed"
	// ReleaseUnknown is a release of a restored rollout: which steps it made is lost (RO-13).
	ReleaseUnknown ReleaseState = "Unknown"
)

// RuntimeRolloutStatus holds observations rebuilt from the outcome label and engine objects.
type RuntimeRolloutStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Phase is where the rollout is.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Message says what the rollout waits for or why it ended.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// Conditions describe the rollout in kstatus terms, plus Retrying while a reconcile fails.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(c, size(c.message) <= 1024)",message="condition messages are at most 1024 characters"
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// CurrentStep is the 1-based index of the step in flight; 0 before the first step.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=256
	CurrentStep int32 `json:"currentStep,omitempty"`
	// Releases is the observed state of each step's release, one entry per release.
	// Only the operator writes it, whole, with each status write: an atomic list spares the
	// API server a managedFields entry per release to track and store on every write.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Releases []ReleaseStatus `json:"releases,omitempty"`
	// StartedAt is when the first step started.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// CompletedAt is when the rollout reached its outcome.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// ValidationRun names the deployment-validation run of this rollout.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ValidationRun string `json:"validationRun,omitempty"`
	// ValidationStartedAt is when the validation run in flight started: the operator ends it
	// once it runs longer than its bound (--validation-timeout).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	ValidationStartedAt *metav1.Time `json:"validationStartedAt,omitempty"`
}

// ReleaseStatus is the observed state of one release of the rollout.
type ReleaseStatus struct {
	// Release is the plan release ID.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=53
	Release string `json:"release"`
	// State is what the operator observed.
	// +required
	State ReleaseState `json:"state"`
	// StartedAt is when the operator wrote the release's engine object for this rollout.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// Writes is how many times the step in flight wrote the release's engine object: its first
	// write and each rewrite after something else changed it (at most 1 + domain.StepRewriteBound).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Writes int32 `json:"writes,omitempty"`
	// Message is the engine's detail, safe to show to users.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}
