package v1alpha1_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

func TestRuntimeRolloutApprovalRules(t *testing.T) {
	t.Parallel()
	later := metav1.NewTime(deadline.Add(time.Hour))
	runRolloutUpdates(t, []rolloutUpdateCase{
		{name: "RO-4 approvedBy, expiresAt and reason set together are accepted", change: approve},
		{
			name:    "RO-4 approvedBy and expiresAt without reason are refused",
			change:  then(approve, func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.Reason = "" }),
			wantErr: "approvedBy, expiresAt and reason are set together",
		},
		{
			name: "RO-4 an approval cannot be cleared", setup: updates(approve),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval = nil },
			wantErr: "an approval is set once: it can be neither cleared, changed nor extended",
		},
		{
			name: "RO-4 an approval cannot be extended", setup: updates(approve),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.ExpiresAt = &later },
			wantErr: "an approval is set once: it can be neither cleared, changed nor extended",
		},
		{
			name: "RO-4 approvedBy is set once", setup: updates(approve),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.ApprovedBy = "mallory" },
			wantErr: "an approval is set once: it can be neither cleared, changed nor extended",
		},
		{
			name: "RO-4 the approval reason is set once", setup: updates(approve),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.Reason = "Other" },
			wantErr: "an approval is set once: it can be neither cleared, changed nor extended",
		},
		{name: "RO-4 revoking after approval is accepted", setup: updates(approve), change: revoke},
		{
			name:    "RO-4 revoking in the approving request is refused",
			change:  then(approve, revoke),
			wantErr: "a revocation needs an existing approval",
		},
		{
			name: "RO-4 revokedBy without revokedAt and revokeReason is refused", setup: updates(approve),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.RevokedBy = "bob" },
			wantErr: "revokedBy, revokedAt and revokeReason are set together",
		},
		{
			name: "RO-4 a revocation is set once", setup: updates(approve, revoke),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.RevokedBy = "mallory" },
			wantErr: "a revocation is set once: it can be neither cleared nor changed",
		},
		{
			name: "RO-4 a revocation cannot be cleared", setup: updates(approve, revoke),
			change: func(ro *aicrv1alpha1.RuntimeRollout) {
				ro.Spec.Approval.RevokedBy, ro.Spec.Approval.RevokedAt, ro.Spec.Approval.RevokeReason = "", nil, ""
			},
			wantErr: "a revocation is set once: it can be neither cleared nor changed",
		},
		{name: "RO-4 acknowledging with an approval is accepted", setup: updates(approve), change: acknowledge("gpu-operator")},
		{
			name:    "RO-4 acknowledging in the approving request is refused",
			change:  then(approve, acknowledge("gpu-operator")),
			wantErr: "an acknowledgement needs an existing approval",
		},
		{
			name: "RO-4 a second acknowledgement of one release is refused", setup: updates(approve, acknowledge("gpu-operator")),
			change:  acknowledge("gpu-operator"),
			wantErr: "at most one acknowledgement per release",
		},
		{
			name: "RO-4 acknowledging another release is accepted", setup: updates(approve, acknowledge("gpu-operator")),
			change: acknowledge("nvsentinel"),
		},
		{
			name: "RO-4 an acknowledgement cannot be removed", setup: updates(approve, acknowledge("gpu-operator")),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.Acknowledgements = nil },
			wantErr: "acknowledgements are append-only: an acknowledgement cannot be removed",
		},
		{
			name: "RO-4 an acknowledgement cannot be replaced by another release's", setup: updates(approve, acknowledge("gpu-operator")),
			change: func(ro *aicrv1alpha1.RuntimeRollout) {
				ro.Spec.Approval.Acknowledgements[0].Release = "nvsentinel"
			},
			wantErr: "acknowledgements are append-only: an acknowledgement cannot be removed",
		},
		{
			name: "RO-4 an acknowledgement cannot be changed", setup: updates(approve, acknowledge("gpu-operator")),
			change:  func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Approval.Acknowledgements[0].AcknowledgedBy = "mallory" },
			wantErr: "acknowledgements are append-only: an acknowledgement cannot be changed",
		},
	})
}
