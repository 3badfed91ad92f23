package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// awaitingAcknowledgement is a rollout paused after nvsentinel's apply (step 2).
func awaitingAcknowledgement() *aicrv1alpha1.RuntimeRolloutStatus {
	return &aicrv1alpha1.RuntimeRolloutStatus{
		Phase: aicrv1alpha1.PhaseAwaitingAcknowledgement, CurrentStep: 2,
		Message: "nvsentinel awaits acknowledgement of its recorded steps before its apply",
	}
}

func TestAcknowledge_AsApprover(t *testing.T) {
	needEnv(t)
	t.Parallel()
	a := approved()
	a.Acknowledgements = []aicrv1alpha1.Acknowledgement{
		{Release: "gpu-operator", AcknowledgedBy: approverUser, AcknowledgedAt: *ts(deadline.AddDate(0, 0, -1))},
	}
	name := fixture{ro: newRollout(), approval: a, status: awaitingAcknowledgement()}.create(t)

	r := run(approverUser, "acknowledge", name)

	requireOK(t, r)
	assert.Equal(t, "rollout "+name+": nvsentinel acknowledged by approver-alice at 2029-06-01T12:00:00Z\n", r.stdout)
	acks := getRollout(t, name).Spec.Approval.Acknowledgements
	require.Len(t, acks, 2, "appended, the earlier one kept")
	assert.Equal(t, "gpu-operator", acks[0].Release)
	assert.Equal(t, "nvsentinel", acks[1].Release)
	assert.Equal(t, approverUser, acks[1].AcknowledgedBy)
	assert.Equal(t, now, acks[1].AcknowledgedAt.UTC())
}

func TestAcknowledge_Refusals(t *testing.T) {
	needEnv(t)
	t.Parallel()
	acked := approved()
	acked.Acknowledgements = []aicrv1alpha1.Acknowledgement{
		{Release: "nvsentinel", AcknowledgedBy: approverUser, AcknowledgedAt: *ts(now)},
	}
	tests := []struct {
		name string
		fx   fixture
		want string
	}{
		{name: "not waiting", fx: fixture{ro: newRollout(), approval: approved(),
			status: &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 2}},
			want: "is not waiting for an acknowledgement (phase Progressing)"},
		{name: "restored without status", fx: fixture{ro: newRollout(), approval: approved()},
			want: "is not waiting for an acknowledgement (phase unknown)"},
		{name: "already acknowledged", fx: fixture{ro: newRollout(), approval: acked, status: awaitingAcknowledgement()},
			want: "release nvsentinel is already acknowledged by approver-alice"},
		{name: "ended", fx: fixture{ro: newRollout(), approval: approved(), status: awaitingAcknowledgement(), outcome: "Expired"},
			want: "has ended (outcome Expired)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := tt.fx.create(t)
			before := getRollout(t, name).Spec.Approval

			r := run(approverUser, "acknowledge", name)

			requireRefused(t, r, tt.want)
			assert.Equal(t, before, getRollout(t, name).Spec.Approval, "a refusal changes nothing")
		})
	}
}

func TestAcknowledge_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout(), approval: approved(), status: awaitingAcknowledgement()}.create(t)

	r := run(strangerUser, "acknowledge", name)
	requireRefused(t, r, `User "stranger-sam" cannot get resource "runtimerollouts"`)

	r = run(editorUser, "acknowledge", name)
	requireRefused(t, r, "ADM-1: editor-eve may not update runtimerollouts/approve for "+name)
	assert.Empty(t, getRollout(t, name).Spec.Approval.Acknowledgements)
}
