package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// pause sets spec.paused and waits until the runtime reports it.
func (h *harness) pause(paused bool) {
	h.t.Helper()
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Paused = paused })
	if paused {
		h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonPaused, "the runtime is paused (spec.paused)")
	}
}

// Pausing mid-rollout lets the step in flight finish and starts no further step; the rollout
// goes on once the pause ends (spec.paused, RO-1). On both engines.
func TestRolloutPausedFinishesTheStepInFlight(t *testing.T) {
	onEachEngine(t, false, testRolloutPausedFinishesTheStepInFlight)
}

func testRolloutPausedFinishesTheStepInFlight(t *testing.T, h *harness) {
	h.start()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	first, second := ro.Spec.Steps[0].Release, ro.Spec.Steps[1].Release
	h.waitReleaseState(ro.Name, first, "InFlight")

	h.pause(true)
	h.world.settle(t)
	// The reconcile that records the first release Ready judged the next step in the same
	// pass and held it: had it started, the second release would be live already.
	h.waitReleaseState(ro.Name, first, "Ready")
	assert.Len(t, h.liveReleases(), 1, "no step starts while the runtime is paused")
	h.waitReleaseState(ro.Name, second, "Pending")

	h.world.setInstant(true)
	h.pause(false)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Len(t, h.liveReleases(), len(plan.Releases))
}

// A paused runtime starts no step, yet its rollouts still end: an approval given while paused
// starts nothing, and the rollout ends Expired when the approval expires on the fake clock
// (spec.paused, RO-8).
func TestRolloutPausedApprovalStartsNothingAndExpires(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)
	h.pause(true)
	before := h.engine.WriteCount()

	h.approve(ro.Name, epoch.Add(30*time.Minute))
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseProgressing)
	assert.Equal(t, before, h.engine.WriteCount(), "the approval starts no step while paused")

	h.clock.Step(time.Hour)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseExpired)
	assert.Equal(t, "approval expired, the step in flight finished", done.Status.Message)
	assert.Equal(t, before, h.engine.WriteCount(), "an expired rollout writes nothing")
}

// A rollout awaiting approval on a paused runtime still expires at its deadline (spec.paused,
// RO-8).
func TestRolloutPausedAwaitingApprovalExpiresAtTheDeadline(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)
	h.pause(true)

	h.clock.Step(2 * time.Hour)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseExpired)
	assert.Equal(t, "no approval before the deadline", done.Status.Message)
}
