package v1alpha1_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

var (
	deadline = metav1.NewTime(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	approved = metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// rolloutName derives a unique, valid object name from the test name.
func rolloutName(t *testing.T) string {
	sum := sha256.Sum256([]byte(t.Name()))
	return "rollout-" + hex.EncodeToString(sum[:8]) + "-1"
}

func validRollout(t *testing.T) *aicrv1alpha1.RuntimeRollout {
	return &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: rolloutName(t)},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{
			RuntimeUID:              validUID,
			FromPlanDigest:          digestOf("from"),
			ToPlanDigest:            digestOf("to"),
			StartingInventoryDigest: digestOf("inventory"),
			Deadline:                deadline,
			ApprovalRequired:        true,
			Steps: []aicrv1alpha1.Step{
				{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade, Assessment: "manual", ChangesCRDs: true},
				{Release: "nvsentinel", Operation: aicrv1alpha1.OperationVerify, Assessment: "safe"},
			},
		},
	}
}

func approve(ro *aicrv1alpha1.RuntimeRollout) {
	ro.Spec.Approval = &aicrv1alpha1.Approval{ApprovedBy: "alice", ExpiresAt: &deadline, Reason: "Maintenance window"}
}

func revoke(ro *aicrv1alpha1.RuntimeRollout) {
	ro.Spec.Approval.RevokedBy, ro.Spec.Approval.RevokedAt, ro.Spec.Approval.RevokeReason = "bob", &approved, "Job not checkpointed"
}

func acknowledge(release string) func(ro *aicrv1alpha1.RuntimeRollout) {
	return func(ro *aicrv1alpha1.RuntimeRollout) {
		ro.Spec.Approval.Acknowledgements = append(ro.Spec.Approval.Acknowledgements,
			aicrv1alpha1.Acknowledgement{Release: release, AcknowledgedBy: "alice", AcknowledgedAt: approved})
	}
}

// updates lists mutations applied one update at a time.
func updates(steps ...func(ro *aicrv1alpha1.RuntimeRollout)) []func(ro *aicrv1alpha1.RuntimeRollout) {
	return steps
}

// then chains mutations into one update.
func then(steps ...func(ro *aicrv1alpha1.RuntimeRollout)) func(ro *aicrv1alpha1.RuntimeRollout) {
	return func(ro *aicrv1alpha1.RuntimeRollout) {
		for _, s := range steps {
			s(ro)
		}
	}
}

// rolloutUpdateCase creates a rollout (adjusted by create), applies each setup mutation with its own real update
// (each must be accepted), then checks that the API server accepts or refuses change (dry run).
type rolloutUpdateCase struct {
	name    string
	create  func(ro *aicrv1alpha1.RuntimeRollout) // adjusts the rollout before it is created
	setup   []func(ro *aicrv1alpha1.RuntimeRollout)
	change  func(ro *aicrv1alpha1.RuntimeRollout)
	status  bool // change is written through the status subresource
	wantErr string
}

func runRolloutUpdates(t *testing.T, cases []rolloutUpdateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			ro := validRollout(t)
			if tc.create != nil {
				tc.create(ro)
			}
			require.NoError(t, k8s.Create(ctx, ro))
			t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, ro))) })
			for _, setup := range tc.setup {
				setup(ro)
				require.NoError(t, k8s.Update(ctx, ro), "setup must be accepted")
			}
			tc.change(ro)
			var err error
			if tc.status {
				err = k8s.Status().Update(ctx, ro, client.DryRunAll)
			} else {
				err = k8s.Update(ctx, ro, client.DryRunAll)
			}
			expectAdmission(t, err, tc.wantErr)
		})
	}
}

// rolloutCreateCase checks that the API server accepts or refuses a new rollout (dry run).
type rolloutCreateCase struct {
	name    string
	mutate  func(ro *aicrv1alpha1.RuntimeRollout)
	wantErr string
}

func runRolloutCreates(t *testing.T, cases []rolloutCreateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ro := validRollout(t)
			tc.mutate(ro)
			expectAdmission(t, k8s.Create(context.Background(), ro, client.DryRunAll), tc.wantErr)
		})
	}
}

func steps(n int, releaseLen int) []aicrv1alpha1.Step {
	out := make([]aicrv1alpha1.Step, n)
	for i := range out {
		id := fmt.Sprintf("r%d-", i)
		out[i] = aicrv1alpha1.Step{Release: id + strings.Repeat("x", max(releaseLen-len(id), 0)), Operation: aicrv1alpha1.OperationInstall}
	}
	return out
}

func releases(n int, releaseLen int) []aicrv1alpha1.ReleaseStatus {
	out := make([]aicrv1alpha1.ReleaseStatus, n)
	for i, s := range steps(n, releaseLen) {
		out[i] = aicrv1alpha1.ReleaseStatus{Release: s.Release, State: "Pending"}
	}
	return out
}

func conditions(n int, messageLen int) []metav1.Condition {
	out := make([]metav1.Condition, n)
	for i := range out {
		out[i] = metav1.Condition{
			Type: fmt.Sprintf("Type%d", i), Status: metav1.ConditionTrue, Reason: "Test",
			Message: strings.Repeat("m", messageLen), LastTransitionTime: approved,
		}
	}
	return out
}
