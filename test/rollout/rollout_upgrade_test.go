package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// installed creates the runtime, installs the upgrade's from-plan and returns its UID and digest.
func (h *harness) installed(mutate func(*aicrv1alpha1.ClusterRuntime)) (string, *domain.Plan) {
	h.t.Helper()
	uid := h.createRuntime(mutate)
	a := h.fixturePlan(fixtureUpgradeFrom, uid)
	h.setCandidate(h.writePlan(a), metav1.Condition{})
	first := h.waitRollout(1)
	h.waitOutcome(first.Name, aicrv1alpha1.PhaseSucceeded)
	return uid, a
}

// upgrade writes the upgrade's to-plan as the new candidate and returns its rollout.
func (h *harness) upgrade(uid string) (*domain.Plan, *aicrv1alpha1.RuntimeRollout) {
	h.t.Helper()
	b := h.fixturePlan(fixtureUpgradeTo, uid)
	h.setCandidate(h.writePlan(b), metav1.Condition{})
	ro := h.waitRollout(2)
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
	return b, ro
}

func stepCounts(ro *aicrv1alpha1.RuntimeRollout) map[aicrv1alpha1.Operation]int {
	out := map[aicrv1alpha1.Operation]int{}
	for _, s := range ro.Spec.Steps {
		out[s.Operation]++
	}
	return out
}

// An upgrade between the two upgrade fixtures removes first, then upgrades and verifies in
// plan order; it waits for an approval given by an impersonated approver (RO-7, RO-8, CR-8).
// On both engines: on Argo CD the removals go through Argo CD's cascade (ENG-3).
func TestRolloutUpgradeWithApproval(t *testing.T) {
	onEachEngine(t, true, testRolloutUpgradeWithApproval)
}

func testRolloutUpgradeWithApproval(t *testing.T, h *harness) {
	h.start()
	uid, a := h.installed(nil)
	b, ro := h.upgrade(uid)
	assert.Equal(t, a.Digest, ro.Spec.FromPlanDigest)
	assert.Equal(t, b.Digest, ro.Spec.ToPlanDigest)
	assert.True(t, ro.Spec.ApprovalRequired)
	counts := stepCounts(ro)
	assert.Positive(t, counts[aicrv1alpha1.OperationUpgrade])
	assert.Positive(t, counts[aicrv1alpha1.OperationRemove])
	for i, s := range ro.Spec.Steps {
		if i >= counts[aicrv1alpha1.OperationRemove] {
			assert.NotEqual(t, aicrv1alpha1.OperationRemove, s.Operation, "removals come first")
		}
	}
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.AwaitingApprovalMessage(ro.Name))
	h.waitKstatus(status.InProgressStatus)
	before := h.world.writeCount()

	h.approve(ro.Name, epoch.Add(30*time.Minute))
	h.acknowledgeDRARestart(ro.Name)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Equal(t, approver, done.Spec.Approval.ApprovedBy)
	assert.Equal(t, len(ro.Spec.Steps), h.world.writeCount()-before, "one engine write per step")
	live := h.liveReleases()
	assert.Len(t, live, len(b.Releases))
	for _, rel := range b.Releases {
		assert.Equal(t, b.Digest, live[rel.ID].Owner.PlanDigest, rel.ID)
	}
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	assert.Equal(t, b.Digest, h.runtime().Status.ActivePlanDigest)
}

// Without an approval the rollout expires at its deadline on the fake clock; the runtime
// stalls and kstatus reports Failed; the retry annotation creates one fresh rollout (RO-8, CR-11).
func TestRolloutExpiryAndRetry(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)

	h.clock.Step(2 * time.Hour)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseExpired)
	msg := "rollout " + ro.Name + " expired: no approval before the deadline"
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutExpired), msg)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.StalledMessage(ro.Name, msg))
	h.waitKstatus(status.FailedStatus)
	assert.Len(t, h.rollouts(), 2, "an expired rollout is not replaced without a retry request")

	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Annotations = map[string]string{aicrv1alpha1.AnnotationRetryRequestedAt: "2026-11-29T14:00:00Z"}
	})
	retry := h.waitRollout(3)
	assert.Equal(t, ro.Labels[aicrv1alpha1.LabelTransition], retry.Labels[aicrv1alpha1.LabelTransition])
	assert.Equal(t, ro.Name[:len(ro.Name)-1]+"2", retry.Name)
	require.Eventually(t, func() bool {
		return h.runtime().Status.HandledRequests.RetryRequestedAt == "2026-11-29T14:00:00Z"
	}, waitFor, tick)
	h.waitEvent(uid, corev1.EventTypeNormal, "RetryHandled",
		"retry request 2026-11-29T14:00:00Z handled: rollout "+retry.Name+" retries the transition")
	h.waitPhase(retry.Name, aicrv1alpha1.PhaseAwaitingApproval)
	assert.Len(t, h.rollouts(), 3, "the request is handled once")

	// A request while a rollout is in progress is handled without a rollout, and says so.
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Annotations = map[string]string{aicrv1alpha1.AnnotationRetryRequestedAt: "2026-11-29T15:00:00Z"}
	})
	h.waitEvent(uid, corev1.EventTypeNormal, "RetryHandled",
		"retry request 2026-11-29T15:00:00Z handled: no rollout was due (the runtime's conditions say why)")
	assert.Equal(t, "2026-11-29T15:00:00Z", h.runtime().Status.HandledRequests.RetryRequestedAt)
	assert.Len(t, h.rollouts(), 3, "a request with nothing to retry creates no rollout")
	h.recordedOnce(uid, "RetryHandled", "2026-11-29T14:00:00Z")
}

// A revocation mid-rollout lets the step in flight finish and starts no further step (RO-8).
// On both engines.
func TestRolloutRevocation(t *testing.T) {
	onEachEngine(t, true, testRolloutRevocation)
}

func testRolloutRevocation(t *testing.T, h *harness) {
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)
	h.world.setInstant(false)
	before := h.world.writeCount()
	removes := stepCounts(ro)[aicrv1alpha1.OperationRemove]
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	require.Eventually(t, func() bool { return h.world.writeCount() == before+removes+1 }, waitFor, tick)
	inFlight := h.waitPhase(ro.Name, aicrv1alpha1.PhaseProgressing)
	require.Eventually(t, func() bool {
		inFlight = h.rollout(ro.Name)
		return int(inFlight.Status.CurrentStep) == removes+1
	}, waitFor, tick)

	h.patchApproval(ro.Name, map[string]any{"revokedBy": approver, "revokedAt": epoch.Format(time.RFC3339), "revokeReason": "incident"})
	require.Eventually(t, func() bool { return len(h.rollout(ro.Name).Spec.Approval.RevokedBy) > 0 }, waitFor, tick)
	assert.Empty(t, h.rollout(ro.Name).Labels[aicrv1alpha1.LabelOutcome], "the step in flight finishes first")
	h.world.settle(t)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseRevoked)
	assert.Equal(t, before+removes+1, h.world.writeCount(), "no further step after the revocation")
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutRevoked), "")
	h.waitKstatus(status.FailedStatus)
	_ = client.ObjectKey{}
}

// The approval is bound to the starting inventory: an engine object that went away while the
// rollout waited stalls it InventoryDrift when the approval arrives, before any step, and the
// runtime reports the stall (RO-8).
func TestRolloutApprovalAfterInventoryDrift(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, a := h.installed(nil)
	_, ro := h.upgrade(uid)
	gone := a.Releases[len(a.Releases)-1].Ref()
	h.engine.Mu.Lock()
	delete(h.engine.Objs, gone)
	h.engine.Mu.Unlock()
	before := h.engine.WriteCount()

	h.approve(ro.Name, epoch.Add(time.Hour))
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallInventoryDrift), "")
	assert.Equal(t, aicrv1alpha1.PhaseAwaitingApproval, h.rollout(ro.Name).Status.Phase)
	assert.Equal(t, before, h.engine.WriteCount(), "no step was written")
}
