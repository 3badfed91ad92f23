package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// smallPlan is the plan of the first n releases of a fixture bundle for runtimeUID: a rollout of
// a few steps records each of its Events (the recorder drops an object's Events past a burst).
func (h *harness) smallPlan(dir, runtimeUID string, n int) *domain.Plan {
	h.t.Helper()
	p := h.fixturePlan(dir, runtimeUID)
	p.Releases = p.Releases[:n]
	var err error
	p.Digest, err = domain.DesiredStateDigest(p.Releases)
	require.NoError(h.t, err)
	return p
}

// Every transition of a rollout is an Event on it and its creation one on the runtime; a
// rollout awaiting approval records its stall once, as a Warning whose reason is the stall
// reason (OPS-1, RO-8).
func TestRolloutTransitionAndStallEventsOPS1(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid := h.createRuntime(nil)
	h.setCandidate(h.writePlan(h.smallPlan(fixtureUpgradeFrom, uid, 3)), metav1.Condition{})
	install := h.waitRollout(1)
	h.waitOutcome(install.Name, aicrv1alpha1.PhaseSucceeded)
	ruid := string(install.UID)
	h.waitEvent(uid, corev1.EventTypeNormal, "RolloutCreated", "rollout "+install.Name+" created toward plan")
	h.waitEvent(ruid, corev1.EventTypeNormal, "RolloutStarted", "rollout "+install.Name+" started")
	h.waitEvent(ruid, corev1.EventTypeNormal, "StepStarted", "rollout "+install.Name+": step 3/3")
	h.waitEvent(ruid, corev1.EventTypeNormal, "StepSucceeded", "(Install) ready")
	h.waitEvent(ruid, corev1.EventTypeNormal, "RolloutEnded", "rollout "+install.Name+" succeeded")

	h.setCandidate(h.writePlan(h.smallPlan(fixtureUpgradeTo, uid, 3)), metav1.Condition{})
	ro := h.waitRollout(2)
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
	h.waitEvent(string(ro.UID), corev1.EventTypeWarning, string(domain.StallAwaitingApproval), domain.AwaitingApprovalMessage(ro.Name))
	h.reconcileAgain()
	h.recordedOnce(string(ro.UID), string(domain.StallAwaitingApproval), "")
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	h.waitEvent(string(ro.UID), corev1.EventTypeNormal, "RolloutApproved", "approved by "+approver)
	h.waitEvent(string(ro.UID), corev1.EventTypeNormal, "StepSucceeded", "(Remove) ready")
	h.waitEvent(string(ro.UID), corev1.EventTypeNormal, "RolloutEnded", "rollout "+ro.Name+" succeeded")
}

// Each stall of the runtime's own is a Warning Event on the ClusterRuntime whose reason is the
// stall reason, recorded when the stall begins and not again on the next reconciles; the
// runtime's Stalled condition carries the same reason (OPS-1, ENG-4, PLAN-5, PLAN-6, RO-13).
func TestRuntimeStallEventsOPS1(t *testing.T) {
	tests := []struct {
		name  string
		stall domain.StallReason
		// provoke starts the harness in the state that stalls; it returns the runtime UID.
		provoke func(h *harness) string
		part    string
	}{
		{"engine missing", domain.StallEngineMissing, func(h *harness) string {
			h.engine.Mu.Lock()
			h.engine.Missing = true
			h.engine.Mu.Unlock()
			h.start()
			return h.createRuntime(nil)
		}, "deployment engine: application kind not served"},
		{"target plan unreadable", domain.StallPlanUnreadable, func(h *harness) string {
			h.start()
			uid := h.createRuntime(nil)
			h.setCandidate(h.fixturePlan(fixtureInstall, uid).Digest, metav1.Condition{})
			return uid
		}, "not found"},
		{"target plan of another runtime", domain.StallPlanOfAnotherRuntime, func(h *harness) string {
			h.start()
			uid := h.createRuntime(nil)
			h.setCandidate(h.writePlan(h.fixturePlan(fixtureInstall, "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f")), metav1.Condition{})
			return uid
		}, "records runtime 0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f"},
		{"admission policy missing", domain.StallAdmissionPolicyMissing, func(h *harness) string {
			h.opts.AdmissionPolicies = []string{"aicr-operator-plans"}
			h.start()
			return h.createRuntime(nil)
		}, "aicr-operator-plans"},
		{"moved releases lost with a restore", domain.StallMovedReleaseMissing, func(h *harness) string {
			h.start()
			uid, _, _ := h.restoredLosingAllButOne()
			h.setCandidate(h.writePlan(h.fixturePlan(fixtureUpgradeTo, uid)), metav1.Condition{})
			return uid
		}, "were lost with a restore"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true)
			uid := tt.provoke(h)
			h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(tt.stall), "")
			stalled := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled)
			assert.Contains(t, stalled.Message, tt.part)
			h.waitEvent(uid, corev1.EventTypeWarning, string(tt.stall), tt.part)
			h.reconcileAgain()
			h.recordedOnce(uid, string(tt.stall), "")
		})
	}
}

// Available counts each release at the plan it carries (CR-9), on a live ClusterRuntime: the
// release of the step in flight leaves it alone; after a failed rollout it stays True while
// every counted release is healthy, since a release the rollout installs counts only once a
// rollout succeeds and a release whose Remove step started counts no more; a release the failed
// rollout moved counts at its new plan.
func TestAvailableCountsReleasesCR9(t *testing.T) {
	t.Run("an Install not yet succeeded and a moved release, after a failed rollout", func(t *testing.T) {
		onEachEngine(t, true, testAvailableAfterAFailedInstallStep)
	})

	t.Run("a Remove step started, after a failed rollout", func(t *testing.T) {
		h := newHarness(t, true)
		h.start()
		uid, _ := h.installed(nil)
		h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")
		h.engine.Mu.Lock()
		h.engine.Cascade = true // a Remove waits for the release's live objects to go
		h.engine.Mu.Unlock()
		_, ro := h.upgrade(uid)
		removed := ro.Spec.Steps[0].Release
		require.Equal(t, aicrv1alpha1.OperationRemove, ro.Spec.Steps[0].Operation)
		h.approve(ro.Name, epoch.Add(50*time.Minute))
		h.waitReleaseState(ro.Name, removed, "InFlight")
		require.Eventually(t, func() bool { return h.liveReleases()[removed].Removing }, waitFor, tick)
		h.engine.Mu.Lock()
		for ref, st := range h.engine.Objs {
			if ref.ID == removed {
				st.Health = "Degraded" // its workloads go while the cascading delete runs
				h.engine.Objs[ref] = st
			}
		}
		h.engine.Mu.Unlock()

		h.clock.Step(16 * time.Minute) // the removal never finishes within the action timeout
		h.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
		h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutFailed), "")
		h.reconcileAgain()
		h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")
		assert.True(t, h.liveReleases()[removed].Removing, "the release being removed is still there, unhealthy")
	})
}

// testAvailableAfterAFailedInstallStep: an Install step whose release settles Degraded fails
// at the step's action timeout; Available counts only the releases at the plan they carry.
func testAvailableAfterAFailedInstallStep(t *testing.T, h *harness) {
	h.start()
	uid := h.createRuntime(nil)
	a := h.fixturePlan(fixtureInstall, uid)
	h.setCandidate(h.writePlan(a), metav1.Condition{})
	h.waitOutcome(h.waitRollout(1).Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")

	const installed = "kai-scheduler-post" // in the target plan only: the rollout installs it
	b := h.fixturePlan(fixtureUpgradeFrom, uid)
	h.world.degrade(planRef(t, b, installed))
	h.setCandidate(h.writePlan(b), metav1.Condition{})
	ro := h.waitRollout(2)
	require.Contains(t, stepCounts(ro), aicrv1alpha1.OperationInstall)
	if ro.Spec.ApprovalRequired {
		h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
		h.approve(ro.Name, epoch.Add(50*time.Minute))
	}
	h.waitReleaseState(ro.Name, installed, "InFlight")
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")

	h.clock.Step(16 * time.Minute) // past the step's action timeout
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutFailed), "")
	// The step's action timeout ended it, and the message names what the engine last reported
	// (until the runtime reads the rollout's Stalled condition it names the outcome alone).
	require.Eventually(t, func() bool {
		stalled := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled)
		return stalled != nil && strings.Contains(stalled.Message, installed+" (Install) not ready within") &&
			strings.Contains(stalled.Message, "health Degraded")
	}, waitFor, tick, "the runtime reports the step's timeout: %+v", h.runtime().Status.Conditions)
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy",
		"every counted release is healthy at the plan it carries")
	assert.Equal(t, "Degraded", string(h.liveReleases()[installed].Health), "the release the failed rollout installs is not healthy")

	const moved = "cert-manager" // upgraded to the target plan before the failed step
	require.Equal(t, b.Digest, h.liveReleases()[moved].Owner.PlanDigest)
	h.world.degrade(planRef(t, b, moved))
	h.world.settle(t)
	h.reconcileAgain()
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionFalse, "ReleaseUnavailable", "release "+moved+" is not healthy")
}

// planRef is the reference of the release id of plan p.
func planRef(t *testing.T, p *domain.Plan, id string) ports.ReleaseRef {
	t.Helper()
	for _, r := range p.Releases {
		if r.ID == id {
			return r.Ref()
		}
	}
	require.FailNow(t, "no release "+id+" in the plan")
	return ports.ReleaseRef{}
}
