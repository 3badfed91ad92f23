package cli_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

var seq atomic.Int64

// newRollout is a fresh rollout object with a name no other test uses.
func newRollout() *aicrv1alpha1.RuntimeRollout {
	return rolloutObject(fmt.Sprintf("rollout-%s-%d", transition, 100+seq.Add(1)))
}

func TestApprove_AsApprover(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := run(approverUser, "approve", name, "--expires", "2h", "--reason", "Maintenance window")

	requireOK(t, r)
	assert.Equal(t, "rollout "+name+" approved by approver-alice until 2029-06-01T14:00:00Z\n", r.stdout)
	a := getRollout(t, name).Spec.Approval
	require.NotNil(t, a)
	assert.Equal(t, approverUser, a.ApprovedBy, "the username the SelfSubjectReview reports")
	assert.Equal(t, now.Add(2*time.Hour), a.ExpiresAt.UTC())
	assert.Equal(t, "Maintenance window", a.Reason)
}

func TestApprove_UntilDeadlineWithFlagsBeforeTheName(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := runAt(now, 0, "--kubeconfig", kubeconfig, "--reason", "Change 4711", "--as", approverUser, "approve", name)

	requireOK(t, r)
	assert.Equal(t, "rollout "+name+" approved by approver-alice until 2029-06-02T12:00:00Z\n", r.stdout)
	assert.Equal(t, deadline, getRollout(t, name).Spec.Approval.ExpiresAt.UTC())
}

func TestApprove_AsAGroupMemberWithAsGroup(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := runAt(now, 0, "approve", name, "--kubeconfig", kubeconfig, "--as", groupMember, "--as-group", approverGroup,
		"--expires", "30m", "--reason", "On call")

	requireOK(t, r)
	assert.Equal(t, "rollout "+name+" approved by approver-bob until 2029-06-01T12:30:00Z\n", r.stdout)
	assert.Equal(t, groupMember, getRollout(t, name).Spec.Approval.ApprovedBy)
}

func TestApprove_Refusals(t *testing.T) {
	needEnv(t)
	t.Parallel()
	noApproval := newRollout()
	noApproval.Spec.ApprovalRequired = false
	tests := []struct {
		name string
		fx   fixture
		at   time.Time
		args []string
		want string
	}{
		{name: "ended", fx: fixture{ro: newRollout(), outcome: "Superseded"},
			want: "has ended (outcome Superseded)"},
		{name: "already approved", fx: fixture{ro: newRollout(), approval: approved()},
			want: "is already approved by approver-alice until 2029-06-02T12:00:00Z: an approval can be neither changed nor extended"},
		{name: "needs no approval", fx: fixture{ro: noApproval},
			want: "needs no approval: spec.approvalRequired is false"},
		{name: "deadline passed without --expires", fx: fixture{ro: newRollout()}, at: deadline.Add(time.Hour),
			want: "its deadline has passed (2029-06-02T12:00:00Z); the operator ends it Expired, approve the next one"},
		{name: "no reason", fx: fixture{ro: newRollout()}, args: []string{"--reason", " "},
			want: "--reason is required"},
		{name: "reason too long", fx: fixture{ro: newRollout()}, args: []string{"--reason", strings.Repeat("x", 1025)},
			want: "--reason is longer than 1024 characters"},
		{name: "reason of 1025 characters in more bytes", fx: fixture{ro: newRollout()},
			args: []string{"--reason", strings.Repeat("é", 1025)}, want: "--reason is longer than 1024 characters"},
		{name: "zero --expires", fx: fixture{ro: newRollout()}, args: []string{"--expires", "0", "--reason", "window"},
			want: "--expires must be at least one second"},
		{name: "sub-second --expires", fx: fixture{ro: newRollout()}, args: []string{"--expires", "500ms", "--reason", "window"},
			want: "--expires must be at least one second"},
		{name: "negative --expires", fx: fixture{ro: newRollout()}, args: []string{"--expires", "-1h", "--reason", "window"},
			want: "--expires must be at least one second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := tt.fx.create(t)
			at := tt.at
			if at.IsZero() {
				at = now
			}
			args := append([]string{"approve", name, "--kubeconfig", kubeconfig, "--as", approverUser}, tt.args...)
			if tt.args == nil {
				args = append(args, "--reason", "Maintenance window")
			}
			before := getRollout(t, name).Spec.Approval

			r := runAt(at, 0, args...)

			requireRefused(t, r, tt.want)
			assert.Equal(t, before, getRollout(t, name).Spec.Approval, "a refusal changes nothing")
		})
	}
}

// TestApprove_ReasonCountsCharacters: --reason is bounded in characters, as the API bounds
// spec.approval.reason, so 1024 two-byte characters are accepted by both (CLI-3).
func TestApprove_ReasonCountsCharacters(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)
	reason := strings.Repeat("é", 1024)

	r := run(approverUser, "approve", name, "--expires", "1h", "--reason", reason)

	requireOK(t, r)
	assert.Equal(t, reason, getRollout(t, name).Spec.Approval.Reason)
}

func TestApprove_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := run(strangerUser, "approve", name, "--reason", "Maintenance window")
	requireRefused(t, r, `get rollout `+name+`: runtimerollouts.operator.aicr.run "`+name+`" is forbidden: `+
		`User "stranger-sam" cannot get resource "runtimerollouts"`)

	r = run(editorUser, "approve", name, "--reason", "Maintenance window")
	requireRefused(t, r, "approve rollout "+name+": ")
	assert.Contains(t, r.stderr, "ADM-1: editor-eve may not update runtimerollouts/approve for "+name)
	assert.Nil(t, getRollout(t, name).Spec.Approval)
}
