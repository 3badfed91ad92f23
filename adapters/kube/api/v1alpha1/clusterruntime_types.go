package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterRuntimeName is the only name a ClusterRuntime may have (CR-1).
const ClusterRuntimeName = "cluster"

// ClusterRuntime is the runtime intent and policy of the cluster: what AICR should resolve a
// recipe for, where the GPU stack runs, and how new plans are selected and rolled out. There
// is exactly one, named cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=aicrrt,categories=aicr
// +kubebuilder:metadata:annotations="helm.sh/resource-policy=keep";"argocd.argoproj.io/sync-options=Prune=false,Delete=false"
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="the ClusterRuntime must be named cluster: the operator acts on exactly one runtime"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Rollout",type=string,JSONPath=`.status.rollout`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Active Plan",type=string,JSONPath=`.status.activePlanDigest`,priority=1
// +kubebuilder:printcolumn:name="Target Plan",type=string,JSONPath=`.status.targetPlanDigest`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
type ClusterRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the runtime intent and policy.
	// +required
	Spec ClusterRuntimeSpec `json:"spec"`
	// Status holds observations the operator can rebuild from plans, rollouts and engine objects.
	// +optional
	Status ClusterRuntimeStatus `json:"status,omitempty"`
}

// ClusterRuntimeSpec is the runtime intent and policy (CR-2). Infrastructure (AICR image,
// engine, registry, namespaces, identities) is installation configuration, not spec (PLAT-9).
type ClusterRuntimeSpec struct {
	// Intent is AICR's workload intent, for example training or inference.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Intent string `json:"intent,omitempty"`
	// Platform is AICR's platform, for example kubeflow or dynamo.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Platform string `json:"platform,omitempty"`
	// Profile is AICR's configuration profile choice, as name=value (for example gpuStack=operator-managed).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Profile string `json:"profile,omitempty"`
	// Criteria declares what the cluster is (service, accelerator, os) before its GPU nodes
	// have a driver; the snapshot taken after the GPU stack is installed must confirm it. The
	// keys are the AICR criteria a snapshot measures; intent and platform have their own fields.
	// +optional
	// +kubebuilder:validation:MaxProperties=3
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['service', 'accelerator', 'os'])",message="criteria keys are service, accelerator and os, the AICR criteria a snapshot confirms (intent and platform have their own fields)"
	Criteria map[string]CriterionValue `json:"criteria,omitempty"`
	// Placement selects the system and accelerated node groups.
	// +required
	Placement Placement `json:"placement"`
	// Selection decides which resolved plan becomes the rollout target.
	// +optional
	Selection Selection `json:"selection,omitempty"`
	// Overrides are values overrides passed to aicr bundle, one per (component, path).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(o, self.exists_one(p, p.component == o.component && p.path == o.path))",message="overrides must be unique by (component, path)"
	Overrides []Override `json:"overrides,omitempty"`
	// Configuration mirrors AICR's recipe configuration: cluster-specific desired state AICR
	// records in the recipe without a criteria axis. AICR validates its content (CR-5).
	// +optional
	Configuration *RecipeConfiguration `json:"configuration,omitempty"`
	// Validation sets the deployment-validation policy of rollouts.
	// +optional
	Validation ValidationPolicy `json:"validation,omitempty"`
	// ApprovalPolicy sets what needs an approver besides the rules every transition follows.
	// +optional
	ApprovalPolicy ApprovalPolicy `json:"approvalPolicy,omitempty"`
	// ChangePolicy decides when a step that may disrupt the accelerated nodes starts: change
	// windows, freezes and protected workloads.
	// +optional
	ChangePolicy ChangePolicy `json:"changePolicy,omitempty"`
	// Adoption takes over the engine objects of an earlier runtime.
	// +optional
	Adoption *Adoption `json:"adoption,omitempty"`
	// Paused stops starting new rollouts, rollout steps and deployment validation runs; a step
	// in flight finishes. A rollout still ends when its approval is revoked or expires, its
	// deadline passes without an approval, or the target moves.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// SuspendEngine turns automated sync off on every engine object of the runtime (each Argo CD
	// Application), for maintenance outside the operator: the engine's self-heal cannot undo it.
	// While it is set no rollout is created and no rollout step or validation run starts; the
	// step in flight finishes and its engine object is suspended once the engine applied it.
	// Ready is EngineSuspended once the engine objects show automated sync off, and
	// EngineSuspensionRefused while the engine refuses (a sync runs). Lifting it turns automated
	// sync back on everywhere.
	// +optional
	SuspendEngine bool `json:"suspendEngine,omitempty"`
}

// CriterionValue is the value of one AICR criterion.
// +kubebuilder:validation:MaxLength=63
type CriterionValue string

// LabelValue is a Kubernetes label value.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// Placement selects the two node groups the GPU stack is scheduled on.
// +kubebuilder:validation:XValidation:rule="self.system.nodeSelector != self.accelerated.nodeSelector",message="the system and accelerated nodeSelectors must differ"
type Placement struct {
	// System is the node group for control-plane components of the stack.
	// +required
	System NodeGroup `json:"system"`
	// Accelerated is the GPU node group.
	// +required
	Accelerated NodeGroup `json:"accelerated"`
}

// NodeGroup selects nodes and the tolerations needed to schedule on them.
// +kubebuilder:validation:XValidation:rule="size(self.nodeSelector) >= 1",message="nodeSelector must have at least one entry"
type NodeGroup struct {
	// NodeSelector selects the group's nodes by label.
	// +required
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$') && (k.contains('/') ? size(k.split('/', 2)[0]) <= 253 && size(k.split('/', 2)[1]) <= 63 : size(k) <= 63))",message="nodeSelector keys must be valid Kubernetes label keys"
	NodeSelector map[string]LabelValue `json:"nodeSelector"`
	// Tolerations let the group's pods schedule on tainted nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Tolerations []Toleration `json:"tolerations,omitempty"`
}

// Toleration is a core/v1 Toleration with the bounds PLAT-8 needs; the operator passes it to
// aicr bundle's node-toleration flags, whose grammar (`*`, key=value:Effect, key:Effect) has
// no form for tolerationSeconds or for every key of one effect.
// +kubebuilder:validation:XValidation:rule="!has(self.tolerationSeconds)",message="aicr bundle's toleration flags cannot carry tolerationSeconds"
// +kubebuilder:validation:XValidation:rule="(has(self.key) && size(self.key) > 0) || (has(self.operator) && self.operator == 'Exists' && !has(self.effect))",message="an empty key tolerates every taint: it needs operator Exists and no effect"
// +kubebuilder:validation:XValidation:rule="!has(self.operator) || self.operator != 'Exists' || !has(self.value) || size(self.value) == 0",message="operator Exists takes no value"
type Toleration struct {
	// Key is the taint key the toleration applies to; empty with operator Exists matches all keys.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key,omitempty"`
	// Operator is Exists or Equal (default Equal).
	// +optional
	// +kubebuilder:validation:Enum=Exists;Equal
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=6
	Operator corev1.TolerationOperator `json:"operator,omitempty"`
	// Value is the taint value the toleration matches.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Value string `json:"value,omitempty"`
	// Effect is the taint effect to match; empty matches all effects.
	// +optional
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=16
	Effect corev1.TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated.
	// +optional
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// SelectionPolicy decides which resolved plan becomes the target.
// +kubebuilder:validation:Enum=Latest;Pinned
// +kubebuilder:validation:MaxLength=6
type SelectionPolicy string

const (
	// SelectionLatest rolls out each newly resolved plan.
	SelectionLatest SelectionPolicy = "Latest"
	// SelectionPinned keeps the target at PinnedPlanDigest.
	SelectionPinned SelectionPolicy = "Pinned"
)

// Selection decides which resolved plan becomes the rollout target.
// +kubebuilder:validation:XValidation:rule="(self.policy == 'Pinned') == (has(self.pinnedPlanDigest) && size(self.pinnedPlanDigest) > 0)",message="pinnedPlanDigest must be set if and only if policy is Pinned"
type Selection struct {
	// Policy is Latest (default) or Pinned.
	// +optional
	// +kubebuilder:default=Latest
	Policy SelectionPolicy `json:"policy,omitempty"`
	// PinnedPlanDigest is the desiredStateDigest of the plan to keep as target when Policy is Pinned.
	// +optional
	// +kubebuilder:validation:MaxLength=71
	// +kubebuilder:validation:XValidation:rule="self.matches('^sha256:[a-f0-9]{64}$')",message="pinnedPlanDigest must be sha256: followed by 64 lowercase hex digits"
	PinnedPlanDigest string `json:"pinnedPlanDigest,omitempty"`
}

// Override sets one value path of one component, as aicr bundle --set-json does. The encoded
// size of Value is checked at reconcile time (InvalidOverride).
type Override struct {
	// Component is the AICR component name (or its registry alias).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Component string `json:"component"`
	// Path is the dotted values path inside the component's values.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Path string `json:"path"`
	// Value is any JSON value.
	// +required
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	Value apiextensionsv1.JSON `json:"value"`
}

// RecipeConfiguration mirrors AICR's recipe configuration (CR-5).
type RecipeConfiguration struct {
	// GKE holds the GKE GPUDirect-TCPXO interface mapping.
	// +optional
	GKE *GKEConfiguration `json:"gke,omitempty"`
}

// GKEConfiguration is AICR's GKE recipe configuration.
type GKEConfiguration struct {
	// TCPXOInterfaces maps each GPU NIC to its GKE Device Network.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(i, self.exists_one(j, j.interfaceName == i.interfaceName))",message="tcpxoInterfaces must be unique by interfaceName"
	TCPXOInterfaces []TCPXOInterface `json:"tcpxoInterfaces,omitempty"`
}

// TCPXOInterface maps one interface to one GKE Device Network.
type TCPXOInterface struct {
	// InterfaceName is the node interface, for example eth1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	InterfaceName string `json:"interfaceName"`
	// Network is the GKE Device Network name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Network string `json:"network"`
}

// DeploymentValidation is the deployment-validation policy.
// +kubebuilder:validation:Enum=Required;Disabled
// +kubebuilder:validation:MaxLength=8
type DeploymentValidation string

const (
	// ValidationRequired gates every rollout on AICR's deployment validation.
	ValidationRequired DeploymentValidation = "Required"
	// ValidationDisabled rolls out without deployment validation.
	ValidationDisabled DeploymentValidation = "Disabled"
)

// ValidationPolicy sets the deployment-validation policy.
type ValidationPolicy struct {
	// Deployment is Required (default) or Disabled.
	// +optional
	// +kubebuilder:default=Required
	Deployment DeploymentValidation `json:"deployment,omitempty"`
}

// OverrideApproval says whether overrides on an initial install need an approver.
// +kubebuilder:validation:Enum=Required;Waived
// +kubebuilder:validation:MaxLength=8
type OverrideApproval string

const (
	// OverrideApprovalRequired makes an initial install whose releases carry overrides wait for
	// an approver, as an install of a later transition always does.
	OverrideApprovalRequired OverrideApproval = "Required"
	// OverrideApprovalWaived rolls an initial install out unattended with its overrides.
	OverrideApprovalWaived OverrideApproval = "Waived"
)

// ApprovalPolicy sets what needs an approver besides the rules every transition follows.
type ApprovalPolicy struct {
	// InitialInstallOverrides is Required (default) or Waived. An Install step whose release
	// spec.overrides may reach needs an approver, as an Upgrade whose values overrides change
	// does; Waived lifts that for the initial install only, when nothing runs yet.
	// +optional
	// +kubebuilder:default=Required
	InitialInstallOverrides OverrideApproval `json:"initialInstallOverrides,omitempty"`
}

// Adoption names an earlier runtime whose engine objects this runtime takes over.
type Adoption struct {
	// RuntimeUID is the UID of the earlier runtime.
	// +required
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')",message="runtimeUID must be a lowercase UUID"
	RuntimeUID string `json:"runtimeUID"`
}

// +kubebuilder:object:root=true

// ClusterRuntimeList is a list of ClusterRuntime.
type ClusterRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the runtimes.
	Items []ClusterRuntime `json:"items"`
}
