package rollout_test

import (
	"context"
	"fmt"
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

// suspend sets spec.suspendEngine.
func (h *harness) suspend(on bool) {
	h.t.Helper()
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.SuspendEngine = on })
}

// suspendedMessage is Ready's message once automated sync is off on n engine objects.
func suspendedMessage(n int) string {
	return fmt.Sprintf("automated sync is off on all %d engine objects of the runtime (spec.suspendEngine)", n)
}

// reconcileAgain changes the runtime's spec (spec.profile, which only resolution reads) and
// waits until its Ready condition observed that generation: the runtime controller reconciled
// once more since.
func (h *harness) reconcileAgain() {
	h.t.Helper()
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Profile = fmt.Sprintf("test=%d", cr.Generation) })
	gen := h.runtime().Generation
	require.Eventually(h.t, func() bool {
		c := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionReady)
		return c != nil && c.ObservedGeneration >= gen
	}, waitFor, tick, "the runtime never observed generation %d", gen)
}

// With spec.suspendEngine set, automated sync goes off on every Application of the runtime and
// Ready is EngineSuspended only once the engine objects show it; the suspension is the only
// engine write, no rollout starts toward a new target, and lifting it turns automated sync back
// on everywhere before the rollout toward the new target proceeds (CR-8, OPS-1).
func TestEngineSuspensionSuspendsEveryApplicationCR8(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, a := h.installed(nil)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	writes, removes, suspensions := h.engine.Counts()

	h.suspend(true)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonEngineSuspended, suspendedMessage(len(a.Releases)))
	live := h.liveReleases()
	require.Len(t, live, len(a.Releases))
	for id, st := range live {
		assert.True(t, st.Suspended, "automated sync of %s is off", id)
	}
	w, r, s := h.engine.Counts()
	assert.Equal(t, [2]int{writes, removes}, [2]int{w, r}, "no Apply, Adopt or Remove while suspended")
	assert.Equal(t, len(a.Releases), s-suspensions, "one Suspend per engine object")
	cr := h.runtime()
	assert.Nil(t, findCondition(cr.Status.Conditions, aicrv1alpha1.ConditionReconciling), "settled while suspended")
	assert.Nil(t, findCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled))
	h.waitEvent(uid, corev1.EventTypeNormal, "EngineSuspended", suspendedMessage(len(a.Releases)))

	b := h.fixturePlan(fixtureUpgradeTo, uid)
	h.setCandidate(h.writePlan(b), metav1.Condition{})
	h.waitTarget(b.Digest)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonEngineSuspended, "")
	assert.Len(t, h.rollouts(), 1, "no rollout starts toward a new target while the engine is suspended")

	h.suspend(false)
	h.waitEvent(uid, corev1.EventTypeNormal, "EngineResumed", "spec.suspendEngine lifted")
	require.Eventually(t, func() bool {
		for _, st := range h.liveReleases() {
			if st.Suspended {
				return false
			}
		}
		return true
	}, waitFor, tick, "automated sync is back on every engine object")
	_, _, s = h.engine.Counts()
	assert.Equal(t, 2*len(a.Releases), s-suspensions, "one Suspend and one resume per engine object")
	ro := h.waitRollout(2)
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	h.acknowledgeDRARestart(ro.Name)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
}

// Suspending mid-rollout lets the step in flight finish: its Application keeps automated sync
// until the engine applied its spec, then goes off like the others; no further step starts and
// nothing but the suspension is written. Lifting the switch lets the rollout go on (CR-8).
func TestEngineSuspensionHoldsTheRolloutAfterItsStepInFlightCR8(t *testing.T) {
	h := newHarness(t, false)
	h.start()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	first, second := ro.Spec.Steps[0].Release, ro.Spec.Steps[1].Release
	h.waitReleaseState(ro.Name, first, "InFlight")
	rel := releaseByID(t, plan, first)

	h.suspend(true)
	h.waitCondition(aicrv1alpha1.ConditionReconciling, metav1.ConditionTrue, domain.ReasonEngineSuspending,
		"suspending automated sync: "+rel.Ref().String()+" wait for the sync of their step in flight")
	assert.False(t, h.liveReleases()[first].Suspended, "the step in flight keeps automated sync until its sync applied")
	writes, removes, _ := h.engine.Counts()

	h.engine.Settle()
	h.waitReleaseState(ro.Name, first, "Ready")
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonEngineSuspended, suspendedMessage(1))
	live := h.liveReleases()
	require.Len(t, live, 1, "no further step starts while the engine is suspended")
	assert.True(t, live[first].Suspended)
	h.waitReleaseState(ro.Name, second, "Pending")
	w, r, _ := h.engine.Counts()
	assert.Equal(t, [2]int{writes, removes}, [2]int{w, r}, "only the suspension was written")

	h.engine.Mu.Lock()
	h.engine.Instant = true
	h.engine.Mu.Unlock()
	h.suspend(false)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	for id, st := range h.liveReleases() {
		assert.False(t, st.Suspended, "automated sync of %s is back on", id)
	}
}

// The engine refuses to suspend an Application while a sync runs on it: the runtime's Ready and
// Stalled say EngineSuspensionRefused with the engine's message, one Warning Event records it
// (not one per reconcile), the other Applications are suspended meanwhile, and once the sync
// ended the suspension holds (CR-8, OPS-1).
func TestEngineSuspensionRefusedWhileASyncRunsCR8(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, a := h.installed(nil)
	busy := a.Releases[0].Ref()
	h.engine.Mu.Lock()
	st := h.engine.Objs[busy]
	st.Operation = ports.OperationRunning // a self-heal sync runs
	h.engine.Objs[busy] = st
	h.engine.Mu.Unlock()

	h.suspend(true)
	msg := "suspend " + busy.String() + ": " + busy.String() + " is syncing: " + ports.ErrSuspensionRefused.Error()
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallEngineSuspensionRefused), msg)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallEngineSuspensionRefused), msg)
	h.waitEvent(uid, corev1.EventTypeWarning, string(domain.StallEngineSuspensionRefused), msg)
	require.Eventually(t, func() bool {
		for id, st := range h.liveReleases() {
			if id != busy.ID && !st.Suspended {
				return false
			}
		}
		return true
	}, waitFor, tick, "the other Applications are suspended meanwhile")
	h.reconcileAgain()
	h.recordedOnce(uid, string(domain.StallEngineSuspensionRefused), msg)

	h.engine.Settle() // the sync ends
	h.reconcileAgain()
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonEngineSuspended, suspendedMessage(len(a.Releases)))
	assert.Nil(t, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled), "the refusal cleared")
	assert.True(t, h.liveReleases()[busy.ID].Suspended)
}

// liveOwners returns the runtime UID each engine object records, by release ID.
func (h *harness) liveOwners() map[string]string {
	out := map[string]string{}
	live, err := h.engine.List(context.Background())
	require.NoError(h.t, err)
	for _, st := range live {
		out[st.Ref.ID] = st.Owner.RuntimeUID
	}
	return out
}

// releaseByID returns the release of plan with ID id.
func releaseByID(t testing.TB, plan *domain.Plan, id string) domain.Release {
	t.Helper()
	for _, r := range plan.Releases {
		if r.ID == id {
			return r
		}
	}
	require.Failf(t, "no release", "plan %s has no release %s", plan.Digest, id)
	return domain.Release{}
}
