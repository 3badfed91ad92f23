package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
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
		{"RO-5 acknowledgements[].release", updates(approve), func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			acknowledge(strings.Repeat("r", n))(ro)
		}, 53, "spec.approval.acknowledgements[0].release: Too long: may not be more than 53 bytes"},
		{"RO-5 acknowledgements[].acknowledgedBy", updates(approve), func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			acknowledge("gpu-operator")(ro)
			ro.Spec.Approval.Acknowledgements[0].AcknowledgedBy = long(n)
		}, 1024, "spec.approval.acknowledgements[0].acknowledgedBy: Too long: may not be more than 1024 bytes"},
		{"RO-5 acknowledgements", updates(approve), func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			for _, s := range steps(n, 8) {
				acknowledge(s.Release)(ro)
			}
		}, 256, "spec.approval.acknowledgements: Too many: 257: must have at most 256 items"},
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
		{"RO-5 status.releases[].message", func(ro *aicrv1alpha1.RuntimeRollout, n int) {
			ro.Status.Releases = releases(1, 8)
			ro.Status.Releases[0].Message = strings.Repeat("m", n)
		}, 1024, "status.releases[0].message: Too long: may not be more than 1024 bytes"},
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

// TestRuntimeRolloutReleaseIDs checks that release IDs are Helm release names (RO-5): lowercase
// letters, digits, dashes and dots. An acknowledgement release with = in it could otherwise
// pose as another acknowledgement to a rule that joins release and user (ADM-2).
func TestRuntimeRolloutReleaseIDs(t *testing.T) {
	t.Parallel()
	pattern := "should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'"
	stepRelease := func(id string) func(ro *aicrv1alpha1.RuntimeRollout) {
		return func(ro *aicrv1alpha1.RuntimeRollout) { ro.Spec.Steps[0].Release = id }
	}
	runRolloutCreates(t, []rolloutCreateCase{
		{name: "RO-5 a step release with dots and dashes is accepted", mutate: stepRelease("kube-prometheus-stack.v2")},
		{name: "RO-5 an uppercase step release is refused", mutate: stepRelease("GPU-Operator"),
			wantErr: "spec.steps[0].release in body " + pattern},
		{name: "RO-5 a step release with = is refused", mutate: stepRelease("gpu-operator=x"),
			wantErr: "spec.steps[0].release in body " + pattern},
		{name: "RO-5 a step release ending in a dash is refused", mutate: stepRelease("gpu-operator-"),
			wantErr: "spec.steps[0].release in body " + pattern},
	})
	runRolloutUpdates(t, []rolloutUpdateCase{
		{name: "RO-5 ADM-2 an acknowledgement release with = is refused", setup: updates(approve),
			change:  acknowledge("gpu-operator=x"),
			wantErr: "spec.approval.acknowledgements[0].release in body " + pattern},
		{name: "RO-5 an uppercase acknowledgement release is refused", setup: updates(approve),
			change:  acknowledge("GPU-Operator"),
			wantErr: "spec.approval.acknowledgements[0].release in body " + pattern},
	})
}

// TestRuntimeRolloutDateTimeBounds checks the maxLength PLAT-8 gives date-time strings: the
// longest RFC 3339 form clients write (nanoseconds and an offset, 35 characters) is accepted,
// one more fractional digit, which the date-time format alone accepts, is refused.
func TestRuntimeRolloutDateTimeBounds(t *testing.T) {
	t.Parallel()
	const longest = "2026-12-01T12:00:00.123456789+00:00"
	const tooLong = "2026-12-01T12:00:00.1234567890+00:00"
	require.Len(t, longest, 35)
	cases := []struct {
		name    string
		value   string
		wantErr string
	}{
		{"PLAT-8 RO-5 spec.deadline at 35 characters is accepted", longest, ""},
		{"PLAT-8 RO-5 spec.deadline over 35 characters is refused", tooLong,
			"spec.deadline: Too long: may not be more than 35 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(validRollout(t))
			require.NoError(t, err)
			u := &unstructured.Unstructured{Object: raw}
			u.SetGroupVersionKind(aicrv1alpha1.GroupVersion.WithKind("RuntimeRollout"))
			require.NoError(t, unstructured.SetNestedField(u.Object, tc.value, "spec", "deadline"))
			expectAdmission(t, k8s.Create(context.Background(), u, client.DryRunAll), tc.wantErr)
		})
	}
}
