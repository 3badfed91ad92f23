package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

func TestRevoke_AsApprover(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout(), approval: approved()}.create(t)

	r := run(approverUser, "revoke", name, "--reason", "Training job not checkpointed")

	requireOK(t, r)
	assert.Equal(t, "rollout "+name+" revoked by approver-alice at 2029-06-01T12:00:00Z\n", r.stdout)
	a := getRollout(t, name).Spec.Approval
	assert.Equal(t, approverUser, a.RevokedBy)
	assert.Equal(t, now, a.RevokedAt.UTC())
	assert.Equal(t, "Training job not checkpointed", a.RevokeReason)
	assert.Equal(t, approverUser, a.ApprovedBy, "the approval stays")
}

func TestRevoke_Refusals(t *testing.T) {
	needEnv(t)
	t.Parallel()
	revoked := approved()
	revoked.RevokedBy, revoked.RevokedAt, revoked.RevokeReason = approverUser, ts(now), "first"
	tests := []struct {
		name string
		fx   fixture
		args []string
		want string
	}{
		{name: "not approved", fx: fixture{ro: newRollout()},
			want: "is not approved: there is nothing to revoke"},
		{name: "already revoked", fx: fixture{ro: newRollout(), approval: revoked},
			want: "is already revoked by approver-alice"},
		{name: "ended", fx: fixture{ro: newRollout(), approval: approved(), outcome: "Succeeded"},
			want: "has ended (outcome Succeeded)"},
		{name: "no reason", fx: fixture{ro: newRollout(), approval: approved()}, args: []string{},
			want: "--reason is required"},
		{name: "validating, refused by the API server (ADM-3)",
			fx: fixture{ro: newRollout(), approval: approved(),
				status: &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseValidating}},
			want: "ADM-3: a rollout that carries the operator.aicr.run/outcome label or is in phase Validating cannot be revoked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := tt.fx.create(t)
			args := tt.args
			if args == nil {
				args = []string{"--reason", "Training job not checkpointed"}
			}
			before := getRollout(t, name).Spec.Approval

			r := run(approverUser, append([]string{"revoke", name}, args...)...)

			requireRefused(t, r, tt.want)
			assert.Equal(t, before, getRollout(t, name).Spec.Approval, "a refusal changes nothing")
		})
	}
}

func TestRevoke_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout(), approval: approved()}.create(t)

	r := run(strangerUser, "revoke", name, "--reason", "no")
	requireRefused(t, r, `User "stranger-sam" cannot get resource "runtimerollouts"`)

	r = run(editorUser, "revoke", name, "--reason", "no")
	requireRefused(t, r, "ADM-1: editor-eve may not update runtimerollouts/approve for "+name)
	require.Empty(t, getRollout(t, name).Spec.Approval.RevokedBy)
}
