package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ChangePolicy decides when a step that may disrupt the accelerated nodes starts: inside an
// allowed window, outside every freeze, while no protected workload runs on those nodes. A
// step's disruption is decided from the plan when the rollout is created (steps[].disruption);
// an approver can let a waiting step go (approval.disruptionOverrides). The operator never
// evicts or drains anything, and a step in flight finishes when a window closes.
type ChangePolicy struct {
	// Windows are the recurring times disruptive steps may start. None: any time outside a
	// freeze.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Windows []ChangeWindow `json:"windows,omitempty"`
	// Freezes are dated ranges in which no disruptive step starts, inside a window or not.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Freezes []ChangeFreeze `json:"freezes,omitempty"`
	// ProtectedWorkloads are the Pods a disruptive step waits for while any runs on an
	// accelerated node.
	// +optional
	ProtectedWorkloads *ProtectedWorkloads `json:"protectedWorkloads,omitempty"`
	// DisruptiveComponents are AICR components treated as disruptive besides those the
	// operator detects (node-level agents, placement on the accelerated node group, manual
	// upgrade records).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	DisruptiveComponents []ComponentName `json:"disruptiveComponents,omitempty"`
	// ExemptComponents are AICR components never treated as disruptive.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	ExemptComponents []ComponentName `json:"exemptComponents,omitempty"`
}

// ComponentName is an AICR component name.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
type ComponentName string

// Weekday is a day of the week, by its three-letter English name.
// +kubebuilder:validation:Enum=Mon;Tue;Wed;Thu;Fri;Sat;Sun
// +kubebuilder:validation:MaxLength=3
type Weekday string

// ChangeWindow opens at start on each of days, in timeZone, and stays open for duration.
// +kubebuilder:validation:XValidation:rule="duration(self.duration) >= duration('1m') && duration(self.duration) <= duration('168h')",message="a change window lasts at least 1m and at most 168h"
type ChangeWindow struct {
	// Days are the days the window opens on, in timeZone. None: every day.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=7
	Days []Weekday `json:"days,omitempty"`
	// Start is the local time the window opens, HH:MM on a 24-hour clock.
	// +required
	// +kubebuilder:validation:MaxLength=5
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	Start string `json:"start"`
	// Duration is how long the window stays open, in elapsed time (a Go duration, 1m to 168h).
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Duration metav1.Duration `json:"duration"`
	// TimeZone is the IANA time zone of start and days, for example Europe/Berlin (default UTC).
	// +optional
	// +kubebuilder:default=UTC
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$`
	// +kubebuilder:validation:XValidation:rule="self != 'Local'",message="timeZone names an IANA zone, not the operator's local time"
	TimeZone string `json:"timeZone,omitempty"`
}

// ChangeFreeze is a dated range [start, end) in which no disruptive step starts.
// +kubebuilder:validation:XValidation:rule="timestamp(self.end) > timestamp(self.start)",message="a freeze ends after it starts"
// +kubebuilder:validation:XValidation:rule="timestamp(self.end) - timestamp(self.start) <= duration('8760h')",message="a freeze lasts at most a year (8760h)"
type ChangeFreeze struct {
	// Start is when the freeze begins (RFC 3339).
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:MaxLength=35
	Start metav1.Time `json:"start"`
	// End is when the freeze ends (RFC 3339), exclusive.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:MaxLength=35
	End metav1.Time `json:"end"`
	// Reason says why, for example "year-end freeze"; the rollout's status repeats it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Reason string `json:"reason"`
}

// ProtectedWorkloads select the Pods a disruptive step must not disrupt.
type ProtectedWorkloads struct {
	// PodSelector selects the Pods by label, as a Kubernetes label selector does.
	// +required
	PodSelector PodSelector `json:"podSelector"`
	// Namespaces limits the search to these namespaces. None: every namespace.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	Namespaces []NamespaceName `json:"namespaces,omitempty"`
}

// NamespaceName is a Kubernetes namespace name.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
type NamespaceName string

// PodSelector is a bounded metav1.LabelSelector; it must select by something.
// +kubebuilder:validation:XValidation:rule="(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",message="podSelector selects by matchLabels or matchExpressions: an empty selector would protect every Pod"
type PodSelector struct {
	// MatchLabels are label pairs a Pod must carry.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$'))",message="matchLabels keys must be valid Kubernetes label keys"
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`
	// MatchExpressions are label requirements a Pod must meet.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []PodSelectorRequirement `json:"matchExpressions,omitempty"`
}

// PodSelectorRequirement is a bounded metav1.LabelSelectorRequirement.
// +kubebuilder:validation:XValidation:rule="(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0)",message="In and NotIn take values; Exists and DoesNotExist take none"
type PodSelectorRequirement struct {
	// Key is the label key.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	// +kubebuilder:validation:MaxLength=12
	Operator string `json:"operator"`
	// Values are the label values In and NotIn compare with.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Values []LabelValue `json:"values,omitempty"`
}
