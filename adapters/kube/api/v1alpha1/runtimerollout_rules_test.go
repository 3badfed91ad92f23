package v1alpha1_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

func TestRuntimeRolloutCreateRules(t *testing.T) {
	t.Parallel()
	runRolloutCreates(t, []rolloutCreateCase{
		{name: "RO-2 a valid rollout is accepted", mutate: func(*aicrv1alpha1.RuntimeRollout) {}},
		{name: "RO-2 an initial install without fromPlanDigest is accepted", mutate: func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.FromPlanDigest = "" }},
		{
			name:    "RO-2 a non-UUID runtimeUID is refused",
			mutate:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.RuntimeUID = "0B7C8A4E-6F1D-4C2A-9E3B-5D8F7A6C1E20" },
			wantErr: "runtimeUID must be a lowercase UUID",
		},
		{
			name:    "RO-2 a malformed toPlanDigest is refused",
			mutate:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.ToPlanDigest = "md5:abc" },
			wantErr: "toPlanDigest must be sha256: followed by 64 lowercase hex digits",
		},
		{
			name:    "RO-2 a malformed fromPlanDigest is refused",
			mutate:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.FromPlanDigest = "sha256:xyz" },
			wantErr: "fromPlanDigest must be sha256: followed by 64 lowercase hex digits",
		},
		{
			name:    "RO-2 an unknown operation is refused",
			mutate:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Steps[0].Operation = "Rollback" },
			wantErr: "spec.steps[0].operation: Unsupported value: \"Rollback\"",
		},
		{
			name:    "RO-4 approvedBy without expiresAt and reason is refused",
			mutate:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval = &aicrv1alpha1.Approval{ApprovedBy: "alice"} },
			wantErr: "approvedBy, expiresAt and reason are set together",
		},
		{
			name: "RO-4 a revocation without an approval is refused",
			mutate: func(ro *aicrv1alpha1.RuntimeRollout) {
				ro.Spec.Approval = &aicrv1alpha1.Approval{}
				revoke(ro)
			},
			wantErr: "a revocation needs an approval",
		},
		{
			name: "RO-4 an acknowledgement without an approval is refused",
			mutate: func(ro *aicrv1alpha1.RuntimeRollout) {
				ro.Spec.Approval = &aicrv1alpha1.Approval{}
				acknowledge("gpu-operator")(ro)
			},
			wantErr: "an acknowledgement needs an approval",
		},
	})
}

func TestRuntimeRolloutImmutableSpec(t *testing.T) {
	t.Parallel()
	later := metav1.NewTime(deadline.Add(time.Hour))
	runRolloutUpdates(t, []rolloutUpdateCase{
		{name: "RO-3 setting the approval is accepted", change: approve},
		{
			name:    "RO-3 runtimeUID is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.RuntimeUID = "1b7c8a4e-6f1d-4c2a-9e3b-5d8f7a6c1e20" },
			wantErr: "spec.runtimeUID is immutable",
		},
		{
			name:    "RO-3 fromPlanDigest is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.FromPlanDigest = digestOf("other") },
			wantErr: "spec.fromPlanDigest is immutable",
		},
		{
			name:    "RO-3 fromPlanDigest cannot be cleared",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.FromPlanDigest = "" },
			wantErr: "spec.fromPlanDigest is immutable",
		},
		{
			name:    "RO-3 toPlanDigest is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.ToPlanDigest = digestOf("other") },
			wantErr: "spec.toPlanDigest is immutable",
		},
		{
			name:    "RO-3 startingInventoryDigest is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.StartingInventoryDigest = digestOf("other") },
			wantErr: "spec.startingInventoryDigest is immutable",
		},
		{
			name:    "RO-3 startingInventoryDigest cannot be cleared",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.StartingInventoryDigest = "" },
			wantErr: "spec.startingInventoryDigest is immutable",
		},
		{
			name:    "RO-3 an assessmentDigest already set cannot be changed",
			create:  withAssessment,
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.AssessmentDigest = digestOf("other report") },
			wantErr: "spec.assessmentDigest is immutable",
		},
		{
			name:    "RO-3 an assessmentDigest already set cannot be cleared",
			create:  withAssessment,
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.AssessmentDigest = "" },
			wantErr: "spec.assessmentDigest is immutable",
		},
		{
			name:   "RO-3 a rollout with an assessmentDigest is still approved",
			create: withAssessment,
			change: approve,
		},
		{
			name:    "RO-3 assessmentDigest cannot be added",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.AssessmentDigest = digestOf("report") },
			wantErr: "spec.assessmentDigest is immutable",
		},
		{
			name:    "RO-3 deadline is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Deadline = later },
			wantErr: "spec.deadline is immutable",
		},
		{
			name:    "RO-3 approvalRequired is immutable",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.ApprovalRequired = false },
			wantErr: "spec.approvalRequired is immutable",
		},
		{
			name:    "RO-3 a step cannot be changed",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Steps[0].Assessment = "safe" },
			wantErr: "spec.steps is immutable",
		},
		{
			name: "RO-3 a step cannot be added",
			change: func(ro *aicrv1alpha1.RuntimeRollout) {
				ro.Spec.Steps = append(ro.Spec.Steps, aicrv1alpha1.Step{Release: "x", Operation: aicrv1alpha1.OperationRemove})
			},
			wantErr: "spec.steps is immutable",
		},
		{
			name:    "RO-3 steps cannot be cleared",
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Steps = nil },
			wantErr: "spec.steps is immutable",
		},
	})
}

// withAssessment gives the rollout an assessment report digest at creation.
func withAssessment(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.AssessmentDigest = digestOf("report") }
