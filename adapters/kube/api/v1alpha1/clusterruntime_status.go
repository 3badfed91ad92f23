package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ClusterRuntime condition types (CR-6). The resolver owns Resolved; the rollout controller
// owns Ready, Available, Reconciling, Stalled and EngineAvailable (CR-7).
const (
	// ConditionReady is normal-true: the target plan is rolled out and every release is ready.
	ConditionReady = "Ready"
	// ConditionAvailable is normal-true: every counted release is healthy at the plan it carries (CR-9).
	ConditionAvailable = "Available"
	// ConditionReconciling is normal-false (kstatus): the operator is working towards the target.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is normal-false (kstatus): progress needs a change to spec or to the world.
	ConditionStalled = "Stalled"
	// ConditionResolved is normal-true: the current spec resolved to a candidate plan.
	ConditionResolved = "Resolved"
	// ConditionEngineAvailable is normal-true: the deployment engine's API and project are usable.
	ConditionEngineAvailable = "EngineAvailable"
	// ConditionRetrying is normal-false, on both kinds: the last reconcile failed with an error
	// retried with backoff; its message names what is waited on and the error. Removed once a
	// reconcile succeeds; it changes no other condition.
	ConditionRetrying = "Retrying"
	// ConditionEngineObjectsPlanned is normal-true: every engine object in the operator's
	// project (Argo CD: the AppProject) is the object of a release the active or target plan
	// names; False names those created out of band.
	ConditionEngineObjectsPlanned = "EngineObjectsPlanned"
)

// ClusterRuntimeStatus holds observations the operator rebuilds from plans, rollouts and
// engine objects (PLAT-5).
type ClusterRuntimeStatus struct {
	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are kstatus conditions plus Available, Resolved, EngineAvailable and Retrying,
	// each owned by one controller's server-side-apply field manager.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(c, size(c.message) <= 1024)",message="condition messages are at most 1024 characters"
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ActivePlanDigest is the desiredStateDigest of the plan last rolled out successfully.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	ActivePlanDigest string `json:"activePlanDigest,omitempty"`
	// CandidatePlanDigest is the desiredStateDigest of the plan the current spec resolved to.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	CandidatePlanDigest string `json:"candidatePlanDigest,omitempty"`
	// TargetPlanDigest is the desiredStateDigest the selection policy rolls out.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	TargetPlanDigest string `json:"targetPlanDigest,omitempty"`
	// Rollout is the name of the rollout in progress, or of the last one.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Rollout string `json:"rollout,omitempty"`
	// HandledRequests records the request annotations already handled, so each is handled once (CR-11).
	// +optional
	HandledRequests HandledRequests `json:"handledRequests,omitempty"`
}

// HandledRequests records the last handled value of each request annotation.
type HandledRequests struct {
	// ResolveRequestedAt is the last handled operator.aicr.run/resolve-requested-at value.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	ResolveRequestedAt string `json:"resolveRequestedAt,omitempty"`
	// RetryRequestedAt is the last handled operator.aicr.run/retry-requested-at value.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	RetryRequestedAt string `json:"retryRequestedAt,omitempty"`
}
