package rollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// TestWithStartsShown_StepsStartedAndFinishedInOnePass: the status written after a pass keeps
// the start of every step the pass started, also of one it started and finished without a write
// in between (an engine that showed it ready at once), and the rollout's start; the rollout the
// pass read is left as it was.
func TestWithStartsShown_StepsStartedAndFinishedInOnePass(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Millisecond)
	ro := &aicrv1alpha1.RuntimeRollout{Spec: aicrv1alpha1.RuntimeRolloutSpec{Steps: []aicrv1alpha1.Step{
		{Release: "cert-manager", Operation: aicrv1alpha1.OperationInstall},
		{Release: "gpu-operator", Operation: aicrv1alpha1.OperationInstall},
		{Release: "nvsentinel", Operation: aicrv1alpha1.OperationInstall},
	}}}
	progressing := func(step int, started time.Time) domain.RolloutStatus {
		return domain.RolloutStatus{Phase: domain.PhaseProgressing, Step: step, StepStartedAt: started}
	}
	decisions := []app.Decision{
		{From: progressing(0, time.Time{}), Out: domain.Outcome{Status: progressing(0, t0), Event: "started", Mutated: true}},
		{From: progressing(0, t0), Out: domain.Outcome{Status: progressing(1, time.Time{}), Event: "ready"}},
		{From: progressing(1, time.Time{}), Out: domain.Outcome{Status: progressing(1, t1), Event: "started", Mutated: true}},
		{From: progressing(1, t1), Out: domain.Outcome{Status: progressing(2, time.Time{}), Event: "ready"}},
	}
	out := toStatus(withStartsShown(ro, decisions), progressing(2, time.Time{}), nil, t1)

	assert.Equal(t, []aicrv1alpha1.ReleaseStatus{
		{Release: "cert-manager", State: aicrv1alpha1.ReleaseReady, StartedAt: &metav1.Time{Time: t0}},
		{Release: "gpu-operator", State: aicrv1alpha1.ReleaseReady, StartedAt: &metav1.Time{Time: t1}},
		{Release: "nvsentinel", State: aicrv1alpha1.ReleasePending},
	}, out.Releases)
	assert.Equal(t, &metav1.Time{Time: t0}, out.StartedAt)
	assert.Empty(t, ro.Status.Releases, "the rollout read is not changed")
	assert.Same(t, ro, withStartsShown(ro, decisions[1:2]), "a pass that started no step")
}
