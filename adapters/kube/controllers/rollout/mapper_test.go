package rollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// TestToStatus_ReleaseMessages: the release of the step in flight or failed carries the
// rollout's detail in status.releases[].message; every other release carries none, so no
// message outlives its step (RO-12).
func TestToStatus_ReleaseMessages(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ro := &aicrv1alpha1.RuntimeRollout{Spec: aicrv1alpha1.RuntimeRolloutSpec{Steps: []aicrv1alpha1.Step{
		{Release: "cert-manager", Operation: aicrv1alpha1.OperationUpgrade},
		{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade},
		{Release: "nvsentinel", Operation: aicrv1alpha1.OperationInstall},
	}}}
	for _, tc := range []struct {
		name    string
		phase   domain.Phase
		state   aicrv1alpha1.ReleaseState
		started *metav1.Time
	}{
		{"in flight", domain.PhaseProgressing, aicrv1alpha1.ReleaseInFlight, &metav1.Time{Time: now}},
		{"failed", domain.PhaseFailed, aicrv1alpha1.ReleaseFailed, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := "gpu-operator: sync failed: one or more objects failed to apply"
			st := domain.RolloutStatus{Phase: tc.phase, Step: 1, StepStartedAt: now, Message: msg}
			ro.Status.Releases = []aicrv1alpha1.ReleaseStatus{{Release: "cert-manager", State: aicrv1alpha1.ReleaseInFlight, Message: "stale"}}
			out := toStatus(ro, st, nil, now)
			assert.Equal(t, []aicrv1alpha1.ReleaseStatus{
				{Release: "cert-manager", State: aicrv1alpha1.ReleaseReady},
				{Release: "gpu-operator", State: tc.state, Message: msg, StartedAt: tc.started},
				{Release: "nvsentinel", State: aicrv1alpha1.ReleasePending},
			}, out.Releases)
		})
	}
}
