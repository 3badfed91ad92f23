package shared

import (
	"time"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// Defaults of Options.
const (
	// DefaultRolloutWindow is how long a new rollout has before its deadline.
	DefaultRolloutWindow = domain.DefaultRolloutWindow
	// FieldManager is the server-side-apply field manager of the rollout controllers (CR-7).
	FieldManager = "aicr-rollout"
)

// Options configures the rollout and runtime controllers from the installation values.
type Options struct {
	// OperatorNamespace holds the plan ConfigMaps.
	OperatorNamespace string
	// ValidationEnabled is the chart's validation.enabled (RO-10).
	ValidationEnabled bool
	// ValidationImage is the pinned AICR image `aicr validate` and its snapshot agent run.
	ValidationImage string
	// ValidationNamespace is where AICR runs the deployment validation checks (RO-10).
	ValidationNamespace string
	// ActionTimeout bounds one step (domain.DefaultActionTimeout when zero).
	ActionTimeout time.Duration
	// ComponentTimeouts bound the steps of the named components instead of ActionTimeout.
	ComponentTimeouts map[string]time.Duration
	// ValidationTimeout bounds one deployment validation run (domain.DefaultValidationTimeout when zero).
	ValidationTimeout time.Duration
	// RolloutWindow is the time from a rollout's creation to its deadline (DefaultRolloutWindow when zero).
	RolloutWindow time.Duration
	// AdmissionPolicies are the chart's policies (ChartAdmissionPolicies) whose absence stalls
	// every rollout and the runtime with AdmissionPolicyMissing; empty checks none.
	AdmissionPolicies []string
	// AdmissionDigests are the content digests of those policies and their bindings as the
	// chart rendered them (AdmissionDigest), by policy name; a policy without one is checked
	// for presence and form only.
	AdmissionDigests map[string]string
	// CRDDigests are the schema digests (crdschema.Digest) of the CRDs of the operator's API
	// it was built with (v1alpha1.CRDSchemaDigests), by CRD name; a live CRD that differs
	// stalls like a missing policy. Empty checks none.
	CRDDigests map[string]string
	// EngineProject checks the engine project against what the chart rendered; a project that
	// differs stalls like a missing policy (nil: not checked).
	EngineProject ProjectCheck
	// Track wraps the rollout and runtime reconcilers (the liveness tracker); nil: none.
	Track Track
	// RequeueCap caps every requeue delay the domain asks for (0: no cap). Tests with a fake
	// clock set it low so time moved on the clock is observed promptly.
	RequeueCap time.Duration
}

// TargetPlanDigest applies spec.selection: the pinned plan, else the resolver's candidate.
func TargetPlanDigest(cr *aicrv1alpha1.ClusterRuntime) string {
	if cr.Spec.Selection.Policy == aicrv1alpha1.SelectionPinned {
		return cr.Spec.Selection.PinnedPlanDigest
	}
	return cr.Status.CandidatePlanDigest
}
