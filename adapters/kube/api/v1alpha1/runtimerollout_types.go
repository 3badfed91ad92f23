package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RuntimeRollout is one transition of the runtime from one plan to another: its steps in
// order, its deadline and its set-once approval. Everything but spec.approval is immutable
// (RO-3); durable outcomes live in the outcome label and evidence annotation (RO-6).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=aicrro,categories=aicr
// +kubebuilder:metadata:annotations="helm.sh/resource-policy=keep";"argocd.argoproj.io/sync-options=Prune=false,Delete=false"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Outcome",type=string,JSONPath=`.metadata.labels.operator\.aicr\.run/outcome`
// +kubebuilder:printcolumn:name="Approval",type=boolean,JSONPath=`.spec.approvalRequired`
// +kubebuilder:printcolumn:name="Deadline",type=string,format=date-time,JSONPath=`.spec.deadline`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="From",type=string,JSONPath=`.spec.fromPlanDigest`,priority=1
// +kubebuilder:printcolumn:name="To",type=string,JSONPath=`.spec.toPlanDigest`,priority=1
// +kubebuilder:printcolumn:name="Approved By",type=string,JSONPath=`.spec.approval.approvedBy`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
type RuntimeRollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec fixes the transition; only spec.approval may change after creation.
	// +required
	Spec RuntimeRolloutSpec `json:"spec"`
	// Status holds observations rebuilt from the outcome label and engine objects.
	// +optional
	Status RuntimeRolloutStatus `json:"status,omitempty"`
}

// RuntimeRolloutSpec fixes one transition (RO-2). The approval is bound to every other field
// without copying them, because they cannot change (RO-3), and ends at the latest at the
// deadline: an expiresAt after spec.deadline is refused when it is set (RO-4). One rule checks
// creates (optionalOldSelf, which it uses only to tell a create: the API server hands such a
// rule date-time fields of oldSelf as strings), the other updates; the update rule lets an
// unchanged expiresAt through, so a rollout approved before the bound existed can still be
// revoked and acknowledged. deadline is immutable and expiresAt set once, so every newly set
// expiresAt is checked.
//
// +kubebuilder:validation:XValidation:rule="self.runtimeUID == oldSelf.runtimeUID",message="spec.runtimeUID is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.fromPlanDigest) == has(oldSelf.fromPlanDigest) && (!has(self.fromPlanDigest) || self.fromPlanDigest == oldSelf.fromPlanDigest)",message="spec.fromPlanDigest is immutable"
// +kubebuilder:validation:XValidation:rule="self.toPlanDigest == oldSelf.toPlanDigest",message="spec.toPlanDigest is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.startingInventoryDigest) == has(oldSelf.startingInventoryDigest) && (!has(self.startingInventoryDigest) || self.startingInventoryDigest == oldSelf.startingInventoryDigest)",message="spec.startingInventoryDigest is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.assessmentDigest) == has(oldSelf.assessmentDigest) && (!has(self.assessmentDigest) || self.assessmentDigest == oldSelf.assessmentDigest)",message="spec.assessmentDigest is immutable"
// +kubebuilder:validation:XValidation:rule="self.deadline == oldSelf.deadline",message="spec.deadline is immutable"
// +kubebuilder:validation:XValidation:rule="(has(self.approvalRequired) && self.approvalRequired) == (has(oldSelf.approvalRequired) && oldSelf.approvalRequired)",message="spec.approvalRequired is immutable"
// +kubebuilder:validation:XValidation:rule="(has(self.steps) ? self.steps : []) == (has(oldSelf.steps) ? oldSelf.steps : [])",message="spec.steps is immutable"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approval) || !has(oldSelf.approval.approvedBy) || (has(self.approval) && has(self.approval.approvedBy) && self.approval.approvedBy == oldSelf.approval.approvedBy && self.approval.expiresAt == oldSelf.approval.expiresAt && self.approval.reason == oldSelf.approval.reason)",message="an approval is set once: it can be neither cleared, changed nor extended"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approval) || !has(oldSelf.approval.revokedBy) || (has(self.approval) && has(self.approval.revokedBy) && self.approval.revokedBy == oldSelf.approval.revokedBy && self.approval.revokedAt == oldSelf.approval.revokedAt && self.approval.revokeReason == oldSelf.approval.revokeReason)",message="a revocation is set once: it can be neither cleared nor changed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approval) || !has(oldSelf.approval.acknowledgements) || (has(self.approval) && has(self.approval.acknowledgements) && oldSelf.approval.acknowledgements.all(o, self.approval.acknowledgements.exists(n, n.release == o.release)))",message="acknowledgements are append-only: an acknowledgement cannot be removed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approval) || !has(oldSelf.approval.disruptionOverrides) || (has(self.approval) && has(self.approval.disruptionOverrides) && oldSelf.approval.disruptionOverrides.all(o, self.approval.disruptionOverrides.exists(n, n.release == o.release)))",message="disruption overrides are append-only: an override cannot be removed"
// +kubebuilder:validation:XValidation:rule="!has(self.approval) || !has(self.approval.revokedBy) || (has(oldSelf.approval) && has(oldSelf.approval.approvedBy))",message="a revocation needs an existing approval"
// +kubebuilder:validation:XValidation:rule="!has(self.approval) || !has(self.approval.acknowledgements) || size(self.approval.acknowledgements) == 0 || (has(oldSelf.approval) && has(oldSelf.approval.approvedBy))",message="an acknowledgement needs an existing approval"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.approval) || !has(self.approval.expiresAt) || self.approval.expiresAt <= self.deadline",message="spec.approval.expiresAt must not be after spec.deadline: an approval cannot outlive its rollout",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="!has(self.approval) || !has(self.approval.expiresAt) || self.approval.expiresAt <= self.deadline || (has(oldSelf.approval) && has(oldSelf.approval.expiresAt) && oldSelf.approval.expiresAt == self.approval.expiresAt)",message="spec.approval.expiresAt must not be after spec.deadline: an approval cannot outlive its rollout"
type RuntimeRolloutSpec struct {
	// RuntimeUID is the UID of the ClusterRuntime this rollout belongs to.
	// +required
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')",message="runtimeUID must be a lowercase UUID"
	RuntimeUID string `json:"runtimeUID"`
	// FromPlanDigest is the desiredStateDigest of the active plan; empty for an initial install.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:XValidation:rule="self.matches('^sha256:[a-f0-9]{64}$')",message="fromPlanDigest must be sha256: followed by 64 lowercase hex digits"
	FromPlanDigest string `json:"fromPlanDigest,omitempty"`
	// ToPlanDigest is the desiredStateDigest of the target plan.
	// +required
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:XValidation:rule="self.matches('^sha256:[a-f0-9]{64}$')",message="toPlanDigest must be sha256: followed by 64 lowercase hex digits"
	ToPlanDigest string `json:"toPlanDigest"`
	// StartingInventoryDigest records the live engine inventory the rollout started from.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:XValidation:rule="self.matches('^sha256:[a-f0-9]{64}$')",message="startingInventoryDigest must be sha256: followed by 64 lowercase hex digits"
	StartingInventoryDigest string `json:"startingInventoryDigest,omitempty"`
	// AssessmentDigest is the digest of AICR's upgrade-check report for this transition,
	// stored in the operator namespace; readers verify the report against it.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:XValidation:rule="self.matches('^sha256:[a-f0-9]{64}$')",message="assessmentDigest must be sha256: followed by 64 lowercase hex digits"
	AssessmentDigest string `json:"assessmentDigest,omitempty"`
	// Deadline is when the rollout expires if it has not finished.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	Deadline metav1.Time `json:"deadline"`
	// ApprovalRequired is true when a step needs human approval before it runs.
	// +optional
	ApprovalRequired bool `json:"approvalRequired,omitempty"`
	// Steps are the releases to act on, in order (RO-7).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Steps []Step `json:"steps,omitempty"`
	// Approval is the set-once human approval, its revocation and acknowledgements.
	// +optional
	Approval *Approval `json:"approval,omitempty"`
}

// Operation is what a step does to its release.
// +kubebuilder:validation:Enum=Install;Upgrade;Verify;Remove;Adopt
// +kubebuilder:validation:MaxLength=7
type Operation string

const (
	// OperationInstall creates the release's engine object.
	OperationInstall Operation = "Install"
	// OperationUpgrade changes the release's chart or values.
	OperationUpgrade Operation = "Upgrade"
	// OperationVerify moves an unchanged release to the target plan and checks it is ready.
	OperationVerify Operation = "Verify"
	// OperationRemove deletes the release.
	OperationRemove Operation = "Remove"
	// OperationAdopt takes over an earlier runtime's engine object.
	OperationAdopt Operation = "Adopt"
)

// Assessment is AICR's upgrade-check verdict for a step.
// +kubebuilder:validation:Enum=safe;manual;blocked;unknown;unversioned;none
// +kubebuilder:validation:MaxLength=11
type Assessment string

// Step is one release action of a rollout.
type Step struct {
	// Release is the plan release ID: a Helm release name (lowercase, dots and dashes,
	// at most 53 characters).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=53
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Release string `json:"release"`
	// Operation is what the step does.
	// +required
	Operation Operation `json:"operation"`
	// Assessment is AICR's upgrade-check verdict for the release's change.
	// +optional
	Assessment Assessment `json:"assessment,omitempty"`
	// ChangesCRDs is true when the step installs, changes or removes CRDs.
	// +optional
	ChangesCRDs bool `json:"changesCRDs,omitempty"`
	// AcknowledgeBeforeApply is true when AICR's manual transition record of the release lists
	// a precondition or steps, or when the release is the DRA driver's after an upgrade of the
	// GPU Operator (its kubelet plugin restarts once the new driver is ready): the rollout
	// pauses before applying the release until an approver acknowledges that they are done
	// (RO-9).
	// +optional
	AcknowledgeBeforeApply bool `json:"acknowledgeBeforeApply,omitempty"`
	// Disruption says why the step may disrupt the accelerated nodes, decided from the plan
	// when the rollout was created; such a step starts only as the runtime's changePolicy
	// allows, unless an approver overrides it. Empty: the step cannot disrupt them.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Disruption string `json:"disruption,omitempty"`
}

// Approval is set once by an approver (RO-4, ADM-1..4).
//
// +kubebuilder:validation:XValidation:rule="has(self.approvedBy) == has(self.expiresAt) && has(self.approvedBy) == has(self.reason)",message="approvedBy, expiresAt and reason are set together"
// +kubebuilder:validation:XValidation:rule="has(self.revokedBy) == has(self.revokedAt) && has(self.revokedBy) == has(self.revokeReason)",message="revokedBy, revokedAt and revokeReason are set together"
// +kubebuilder:validation:XValidation:rule="!has(self.revokedBy) || has(self.approvedBy)",message="a revocation needs an approval"
// +kubebuilder:validation:XValidation:rule="!has(self.acknowledgements) || size(self.acknowledgements) == 0 || has(self.approvedBy)",message="an acknowledgement needs an approval"
type Approval struct {
	// ApprovedBy is the approver's username, as the API server reports it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	ApprovedBy string `json:"approvedBy,omitempty"`
	// ExpiresAt is when the approval ends, at the latest spec.deadline; it cannot be extended.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`
	// Reason says why the approver approved.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`
	// RevokedBy is the revoker's username, as the API server reports it.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	RevokedBy string `json:"revokedBy,omitempty"`
	// RevokedAt is when the approval was revoked.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	RevokedAt *metav1.Time `json:"revokedAt,omitempty"`
	// RevokeReason says why the approval was revoked.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	RevokeReason string `json:"revokeReason,omitempty"`
	// Acknowledgements record, one per release, that a manual transition's recorded steps are done (RO-9).
	// +optional
	// +listType=map
	// +listMapKey=release
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.exists_one(b, b.release == a.release))",message="at most one acknowledgement per release"
	Acknowledgements []Acknowledgement `json:"acknowledgements,omitempty"`
	// DisruptionOverrides let disruptive steps go, one per release, outside a change window
	// or while protected workloads run; each is set once by an approver as themselves.
	// +optional
	// +listType=map
	// +listMapKey=release
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.exists_one(b, b.release == a.release))",message="at most one disruption override per release"
	DisruptionOverrides []DisruptionOverride `json:"disruptionOverrides,omitempty"`
}

// DisruptionOverride records that an approver let a disruptive step go.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="disruption overrides are append-only: an override cannot be changed"
type DisruptionOverride struct {
	// Release is the release ID of the step let go, a Helm release name like the steps.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=53
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Release string `json:"release"`
	// OverriddenBy is the approver's username, as the API server reports it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	OverriddenBy string `json:"overriddenBy"`
	// OverriddenAt is when the override was given.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	OverriddenAt metav1.Time `json:"overriddenAt"`
	// Reason says why the step may go now, for example "job checkpointed".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`
}

// Acknowledgement records that an approver did the steps recorded for a release's transition.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="acknowledgements are append-only: an acknowledgement cannot be changed"
type Acknowledgement struct {
	// Release is the acknowledged release ID, a Helm release name like the steps.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=53
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Release string `json:"release"`
	// AcknowledgedBy is the approver's username, as the API server reports it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	AcknowledgedBy string `json:"acknowledgedBy"`
	// AcknowledgedAt is when the acknowledgement was given.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=35
	AcknowledgedAt metav1.Time `json:"acknowledgedAt"`
}

// +kubebuilder:object:root=true

// RuntimeRolloutList is a list of RuntimeRollout.
type RuntimeRolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the rollouts.
	Items []RuntimeRollout `json:"items"`
}
