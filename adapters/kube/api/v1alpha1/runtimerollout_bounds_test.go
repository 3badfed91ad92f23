package v1alpha1_test

import (
	"strings"
	"testing"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
)

func TestRuntimeRolloutSpecBounds(t *testing.T) {
	t.Parallel()
	bounds := []struct {
		name    string
		set     func(ro *aicrv1alpha1.RuntimeRollout, n int)
		limit   int
		wantErr string
	}{
		{"RO-5 steps", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Spec.Steps = steps(n, 8) }, 256,
			"spec.steps: Too many: 257: must have at most 256 items"},
		{"RO-5 step release ID", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Spec.Steps = steps(1, n) }, 53,
			"spec.steps[0].release: Too long: may not be more than 53 bytes"},
	}
	var cases []rolloutCreateCase
	for _, b := range bounds {
		cases = append(cases,
			rolloutCreateCase{name: b.name + " at its limit is accepted", mutate: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit) }},
			rolloutCreateCase{name: b.name + " over its limit is refused", mutate: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit+1) }, wantErr: b.wantErr},
		)
	}
	runRolloutCreates(t, cases)
}

func TestRuntimeRolloutApprovalBounds(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("u", n) }
	bounds := []struct {
		name    string
		setup   []func(ro *aicrv1alpha1.RuntimeRollout)
		set     func(ro *aicrv1alpha1.RuntimeRollout, n int)
		limit   int
		wantErr string
	}{
		{"RO-5 approvedBy", nil, func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			approve(ro)
			ro.Spec.Approval.ApprovedBy = long(n)
		}, 1024, "spec.approval.approvedBy: Too long: may not be more than 1024 bytes"},
		{"RO-5 reason", nil, func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			approve(ro)
			ro.Spec.Approval.Reason = long(n)
		}, 1024, "spec.approval.reason: Too long: may not be more than 1024 bytes"},
		{"RO-5 revokedBy", updates(approve), func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			revoke(ro)
			ro.Spec.Approval.RevokedBy = long(n)
		}, 1024, "spec.approval.revokedBy: Too long: may not be more than 1024 bytes"},
		{"RO-5 revokeReason", updates(approve), func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			revoke(ro)
			ro.Spec.Approval.RevokeReason = long(n)
		}, 1024, "spec.approval.revokeReason: Too long: may not be more than 1024 bytes"},
	}
	var cases []rolloutUpdateCase
	for _, b := range bounds {
		cases = append(cases,
			rolloutUpdateCase{name: b.name + " at its limit is accepted", setup: b.setup,
				change: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit) }},
			rolloutUpdateCase{name: b.name + " over its limit is refused", setup: b.setup,
				change: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit+1) }, wantErr: b.wantErr},
		)
	}
	runRolloutUpdates(t, cases)
}

func TestRuntimeRolloutStatusBounds(t *testing.T) {
	t.Parallel()
	bounds := []struct {
		name    string
		set     func(ro *aicrv1alpha1.RuntimeRollout, n int)
		limit   int
		wantErr string
	}{
		{"RO-5 status.releases", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Status.Releases = releases(n, 8) }, 256,
			"status.releases: Too many: 257: must have at most 256 items"},
		{"RO-5 status release ID", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Status.Releases = releases(1, n) }, 53,
			"status.releases[0].release: Too long: may not be more than 53 bytes"},
		{"RO-5 status.message", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Status.Message = strings.Repeat("m", n) }, 1024,
			"status.message: Too long: may not be more than 1024 bytes"},
		{"RO-5 status.conditions", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Status.Conditions = conditions(n, 8) }, 16,
			"status.conditions: Too many: 17: must have at most 16 items"},
		{"RO-5 condition message", func(ro *aicrv1alpha1.RuntimeRollout, n int) { ro.Status.Conditions = conditions(1, n) }, 1024,
			"condition messages are at most 1024 characters"},
	}
	var cases []rolloutUpdateCase
	for _, b := range bounds {
		cases = append(cases,
			rolloutUpdateCase{name: b.name + " at its limit is accepted", status: true,
				change: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit) }},
			rolloutUpdateCase{name: b.name + " over its limit is refused", status: true,
				change: func(ro *aicrv1alpha1.RuntimeRollout) { b.set(ro, b.limit+1) }, wantErr: b.wantErr},
		)
	}
	runRolloutUpdates(t, cases)
}
