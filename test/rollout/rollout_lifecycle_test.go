package rollout_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// A rollout whose target moves ends Superseded and a rollout toward the new target follows;
// one whose runtime is gone ends Orphaned (RO-6). Each rollout records its place in the
// runtime's sequence, which a restore keeps (RO-13).
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
	assert.Equal(t, "2", ro.Annotations[aicrv1alpha1.AnnotationSequence])
	assert.Equal(t, strconv.Itoa(len(a.Releases)), ro.Annotations[aicrv1alpha1.AnnotationStartingInventorySize],
		"the size of the inventory the upgrade started from: every release of the installed plan")
	assert.Equal(t, "3", next.Annotations[aicrv1alpha1.AnnotationSequence])
	h.waitPhase(next.Name, aicrv1alpha1.PhaseAwaitingApproval)

	require.NoError(t, k8s.Delete(context.Background(), h.runtime()))
	h.waitOutcome(next.Name, aicrv1alpha1.PhaseOrphaned)
}

// restore creates the Succeeded rollout of an initial install of plan as a backup restores it:
// labels and spec, no status.
func (h *harness) restore(uid string, plan *domain.Plan) *aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	digest := h.writePlan(plan)
	tr, err := domain.PlanTransition(domain.TransitionInput{Target: plan})
	require.NoError(h.t, err)
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
	require.NoError(h.t, k8s.Create(context.Background(), restored))
	h.seen[restored.Name] = true
	return restored
}

// A restored rollout without status rebuilds its phase from the outcome label and records its
// releases Unknown; the active plan is rebuilt from the Succeeded label; releases whose engine
// objects survived the restore are not touched (RO-6, RO-13).
func TestRolloutRestoredWithoutStatus(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	for _, r := range plan.Releases {
		require.NoError(t, h.engine.Apply(context.Background(),
			plan.ReleaseSpec(r.Ref(), ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: plan.Digest})))
	}
	restored := h.restore(uid, plan)
	ro := h.waitPhase(restored.Name, aicrv1alpha1.PhaseSucceeded)
	require.Len(t, ro.Status.Releases, len(plan.Releases))
	for _, r := range ro.Status.Releases {
		assert.Equal(t, aicrv1alpha1.ReleaseState("Unknown"), r.State, r.Release)
	}
	h.setCandidate(plan.Digest, metav1.Condition{})
	require.Eventually(t, func() bool { return h.runtime().Status.ActivePlanDigest == plan.Digest }, waitFor, tick)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "plan "+plan.Digest+" rolled out, validation disabled")
	assert.Len(t, h.rollouts(), 1, "the restored success is the active plan and every release is live: no new rollout")
}

// Releases a restore lost (recorded Unknown, no engine object) are not repaired from the active
// plan: with the target at the active plan the operator creates a rollout to it that reinstalls
// them, with a fresh approval; once it succeeded nothing more is created (RO-13).
func TestRolloutRestoredReinstallsLostReleases(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, plan, kept := h.restoredLosingAllButOne()
	h.setCandidate(plan.Digest, metav1.Condition{})

	reinstall := h.waitRollout(2)
	assert.Equal(t, plan.Digest, reinstall.Spec.FromPlanDigest)
	assert.Equal(t, plan.Digest, reinstall.Spec.ToPlanDigest)
	assert.True(t, reinstall.Spec.ApprovalRequired, "a reinstall needs a fresh approval")
	require.Len(t, reinstall.Spec.Steps, len(plan.Releases)-1)
	for _, s := range reinstall.Spec.Steps {
		assert.Equal(t, aicrv1alpha1.Operation(domain.OpInstall), s.Operation)
		assert.NotEqual(t, kept.ID, s.Release, "the surviving release is not touched")
	}
	h.waitPhase(reinstall.Name, aicrv1alpha1.PhaseAwaitingApproval)
	assert.Len(t, h.liveReleases(), 1, "nothing is reinstalled before the approval")

	h.approve(reinstall.Name, h.clock.Now().Add(time.Hour))
	h.waitOutcome(reinstall.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Len(t, h.liveReleases(), len(plan.Releases))
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "plan "+plan.Digest+" rolled out, validation disabled")
	assert.Len(t, h.rollouts(), 2, "the reinstall succeeded: nothing more to create")
}

// Releases a restore lost block a rollout toward another plan: the runtime stalls
// MovedReleaseMissing and creates nothing, since the rollout would move releases that are not
// there; selecting the active plan again creates the reinstall rollout (RO-13).
func TestRolloutRestoredLostReleasesBlockAnotherTarget(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, plan, _ := h.restoredLosingAllButOne()

	other := h.writePlan(h.fixturePlan(fixtureUpgradeTo, uid))
	h.setCandidate(other, metav1.Condition{})
	// The runtime stalls MovedReleaseMissing already without a target (its target is not the
	// active plan); wait until it has judged the new one before checking what it did with it.
	h.waitTarget(other)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallMovedReleaseMissing), "")
	assert.Contains(t, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled).Message,
		"of the active plan "+plan.Digest+" were lost with a restore")
	assert.Len(t, h.rollouts(), 1, "no rollout toward the other plan")

	h.setCandidate(plan.Digest, metav1.Condition{})
	reinstall := h.waitRollout(2)
	assert.Equal(t, plan.Digest, reinstall.Spec.ToPlanDigest)
	assert.True(t, reinstall.Spec.ApprovalRequired)
}

// restoredLosingAllButOne restores the Succeeded initial install of a fixture plan whose
// engine objects a restore lost, all but the first release's, which it returns, and waits for
// the rollout controller to settle the restored rollout.
func (h *harness) restoredLosingAllButOne() (string, *domain.Plan, domain.Release) {
	h.t.Helper()
	uid, plan, kept, restored := h.restoreLosingAllButOne()
	h.waitPhase(restored.Name, aicrv1alpha1.PhaseSucceeded)
	return uid, plan, kept
}

// restoreLosingAllButOne creates the runtime, keeps the first release of a fixture plan and
// restores the Succeeded initial install of the plan without status; it waits for nothing.
func (h *harness) restoreLosingAllButOne() (string, *domain.Plan, domain.Release, *aicrv1alpha1.RuntimeRollout) {
	h.t.Helper()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	kept := plan.Releases[0]
	require.NoError(h.t, h.engine.Apply(context.Background(),
		plan.ReleaseSpec(kept.Ref(), ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: plan.Digest})))
	return uid, plan, kept, h.restore(uid, plan)
}

// A backup restores, with the operator down, a Succeeded rollout without status whose releases
// were lost and a runtime whose target moved on. On start the runtime may judge the target
// before the rollout controller settled the restored rollout; it still counts the lost releases,
// stalls MovedReleaseMissing and creates nothing (RO-13).
func TestRolloutRestoredUnsettledLostReleasesBlockAnotherTarget(t *testing.T) {
	h := newHarness(t, true)
	uid, plan, _, restored := h.restoreLosingAllButOne()
	other := h.writePlan(h.fixturePlan(fixtureUpgradeTo, uid))
	h.setCandidate(other, metav1.Condition{})
	h.start()

	h.waitTarget(other)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallMovedReleaseMissing), "")
	assert.Contains(t, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled).Message,
		"of the active plan "+plan.Digest+" were lost with a restore")
	h.waitPhase(restored.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Len(t, h.rollouts(), 1, "no rollout toward the other plan")
}
