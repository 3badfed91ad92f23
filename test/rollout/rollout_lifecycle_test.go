package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
)

// A rollout whose target moves ends Superseded and a rollout toward the new target follows;
// one whose runtime is gone ends Orphaned (RO-6).
func TestRolloutSupersededAndOrphaned(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, a := h.installed(nil)
	_, ro := h.upgrade(uid)

	other := h.fixturePlan(fixtureInstall, uid)
	h.setCandidate(h.writePlan(other), metav1.Condition{})
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSuperseded)
	next := h.waitRollout(3)
	assert.Equal(t, a.Digest, next.Spec.FromPlanDigest)
	assert.Equal(t, other.Digest, next.Spec.ToPlanDigest)
	h.waitPhase(next.Name, aicrv1alpha1.PhaseAwaitingApproval)

	require.NoError(t, k8s.Delete(context.Background(), h.runtime()))
	h.waitOutcome(next.Name, aicrv1alpha1.PhaseOrphaned)
}

// A restored rollout without status rebuilds its phase from the outcome label and records its
// releases Unknown; the active plan is rebuilt from the Succeeded label (RO-6, RO-13).
func TestRolloutRestoredWithoutStatus(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	digest := h.writePlan(plan)
	tr, err := domain.PlanTransition(domain.TransitionInput{Target: plan})
	require.NoError(t, err)
	transition := domain.TransitionID(uid, "", digest)
	restored := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: domain.RolloutName(transition, 1), Labels: map[string]string{
			aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded), aicrv1alpha1.LabelTransition: transition,
		}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{RuntimeUID: uid, ToPlanDigest: digest, Deadline: metav1.NewTime(epoch)},
	}
	for _, s := range tr.Steps {
		restored.Spec.Steps = append(restored.Spec.Steps, aicrv1alpha1.Step{Release: s.Release.ID, Operation: aicrv1alpha1.Operation(s.Operation)})
	}
	require.NoError(t, k8s.Create(context.Background(), restored))
	ro := h.waitPhase(restored.Name, aicrv1alpha1.PhaseSucceeded)
	require.Len(t, ro.Status.Releases, len(plan.Releases))
	for _, r := range ro.Status.Releases {
		assert.Equal(t, aicrv1alpha1.ReleaseState("Unknown"), r.State, r.Release)
	}
	h.setCandidate(digest, metav1.Condition{})
	require.Eventually(t, func() bool { return h.runtime().Status.ActivePlanDigest == digest }, waitFor, tick)
	assert.Len(t, h.rollouts(), 1, "the restored success is the active plan: no new rollout")
}
