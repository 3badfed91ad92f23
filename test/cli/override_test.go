package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// disruptiveRollout is a fresh rollout whose gpu-operator and nvsentinel steps may disrupt the
// accelerated nodes.
func disruptiveRollout() *aicrv1alpha1.RuntimeRollout {
	ro := newRollout()
	ro.Spec.Steps[0].Disruption = "runs node-level agents on the accelerated nodes"
	ro.Spec.Steps[1].Disruption = "its values select the accelerated node group"
	return ro
}

// heldAt is a rollout whose step (1-based) the change policy holds.
func heldAt(step int32) *aicrv1alpha1.RuntimeRolloutStatus {
	return &aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: step,
		Message: "waits for protected workloads on the accelerated nodes"}
}

func TestOverride_AsApprover(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: disruptiveRollout(), approval: approved(), status: heldAt(1)}.create(t)

	r := run(approverUser, "override", name, "--reason", "job checkpointed")
	requireOK(t, r)
	assert.Equal(t, "rollout "+name+": gpu-operator let go by approver-alice at 2029-06-01T12:00:00Z outside the change policy\n", r.stdout)

	r = run(approverUser, "override", name, "--release", "nvsentinel", "--reason", "nodes drained")
	requireOK(t, r)

	a := getRollout(t, name).Spec.Approval
	require.Len(t, a.DisruptionOverrides, 2, "appended, the earlier one kept")
	first, second := a.DisruptionOverrides[0], a.DisruptionOverrides[1]
	assert.Equal(t, []string{"gpu-operator", approverUser, "job checkpointed"}, []string{first.Release, first.OverriddenBy, first.Reason})
	assert.Equal(t, []string{"nvsentinel", approverUser, "nodes drained"}, []string{second.Release, second.OverriddenBy, second.Reason})
	assert.Equal(t, now, second.OverriddenAt.UTC())
	assert.Equal(t, approverUser, a.ApprovedBy, "the approval itself is unchanged")
}

// A rollout that needs no approval takes an override too: the change policy holds its steps
// all the same.
func TestOverride_WithoutAnApproval(t *testing.T) {
	needEnv(t)
	t.Parallel()
	ro := disruptiveRollout()
	ro.Spec.ApprovalRequired = false
	name := fixture{ro: ro, status: heldAt(2)}.create(t)

	requireOK(t, run(approverUser, "override", name, "--reason", "job checkpointed"))

	a := getRollout(t, name).Spec.Approval
	require.NotNil(t, a)
	require.Len(t, a.DisruptionOverrides, 1)
	assert.Equal(t, "nvsentinel", a.DisruptionOverrides[0].Release)
	assert.Empty(t, a.ApprovedBy)
}

func TestOverride_Refusals(t *testing.T) {
	needEnv(t)
	t.Parallel()
	overridden := approved()
	overridden.DisruptionOverrides = []aicrv1alpha1.DisruptionOverride{
		{Release: "gpu-operator", OverriddenBy: approverUser, OverriddenAt: *ts(now), Reason: "job checkpointed"},
	}
	tests := []struct {
		name string
		fx   fixture
		args []string
		want string
	}{
		{name: "no reason", fx: fixture{ro: disruptiveRollout(), status: heldAt(1)}, want: "--reason is required"},
		{name: "no step in flight", fx: fixture{ro: disruptiveRollout()}, args: []string{"--reason", "r"},
			want: "has no step in flight: name the release with --release"},
		{name: "the step in flight cannot disrupt", fx: fixture{ro: disruptiveRollout(), status: heldAt(3)},
			args: []string{"--reason", "r"}, want: "release kai-scheduler is not a disruptive step of the rollout"},
		{name: "a release the rollout does not have", fx: fixture{ro: disruptiveRollout(), status: heldAt(1)},
			args: []string{"--release", "network-operator", "--reason", "r"},
			want: "release network-operator is not a disruptive step of the rollout"},
		{name: "already overridden", fx: fixture{ro: disruptiveRollout(), approval: overridden, status: heldAt(1)},
			args: []string{"--reason", "r"}, want: "release gpu-operator is already overridden by approver-alice"},
		{name: "ended", fx: fixture{ro: disruptiveRollout(), status: heldAt(1), outcome: "Failed"},
			args: []string{"--reason", "r"}, want: "has ended (outcome Failed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := tt.fx.create(t)
			before := getRollout(t, name).Spec.Approval

			r := run(approverUser, append([]string{"override", name}, tt.args...)...)

			requireRefused(t, r, tt.want)
			assert.Equal(t, before, getRollout(t, name).Spec.Approval, "a refusal changes nothing")
		})
	}
}

func TestOverride_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: disruptiveRollout(), approval: approved(), status: heldAt(1)}.create(t)

	r := run(strangerUser, "override", name, "--reason", "r")
	requireRefused(t, r, `User "stranger-sam" cannot get resource "runtimerollouts"`)

	r = run(editorUser, "override", name, "--reason", "r")
	requireRefused(t, r, "ADM-1: editor-eve may not update runtimerollouts/approve for "+name)
	assert.Empty(t, getRollout(t, name).Spec.Approval.DisruptionOverrides)
}
