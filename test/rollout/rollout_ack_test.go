package rollout_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// manualUpgrade starts the upgrade whose first Upgrade step AICR assesses manual, its
// transition record listing a precondition or steps or not, and approves it; it returns the
// rollout and the manual release.
func manualUpgrade(t *testing.T, recordedSteps bool) (*harness, *aicrv1alpha1.RuntimeRollout, ports.ReleaseRef) {
	h := newHarness(t, true)
	var manual string
	h.assessments = func(context.Context, string, string, string) ([]ports.ComponentAssessment, string, error) {
		return []ports.ComponentAssessment{{Component: manual, Verdict: ports.VerdictManual, RecordedSteps: recordedSteps}}, "", nil
	}
	h.start()
	uid, a := h.installed(nil)
	b := h.fixturePlan(fixtureUpgradeTo, uid)
	tr, err := domain.PlanTransition(domain.TransitionInput{Active: a, Target: b})
	require.NoError(t, err)
	var release ports.ReleaseRef
	for _, s := range tr.Steps {
		if s.Operation == domain.OpUpgrade {
			manual, release = s.Component, s.Release
			break
		}
	}
	require.NotEmpty(t, manual)
	h.setCandidate(h.writePlan(b), metav1.Condition{})
	ro := h.waitRollout(2)
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	for _, s := range ro.Spec.Steps {
		want := recordedSteps && s.Release == release.ID || s.Release == draDriver
		assert.Equal(t, want, s.AcknowledgeBeforeApply, "%s: the manual release with recorded steps, and the DRA "+
			"driver after the GPU Operator's upgrade", s.Release)
	}
	return h, ro, release
}

// A manual transition whose record lists a precondition or steps pauses before its release is
// applied until an approver acknowledges them, then applies it and continues (RO-9).
func TestRolloutAcknowledgementPauseAndResume(t *testing.T) {
	h, ro, release := manualUpgrade(t, true)
	paused := h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingAcknowledgement)
	msg := "rollout " + ro.Name + " awaiting acknowledgement of the steps recorded for " + release.ID + " before its apply"
	assert.Equal(t, msg, paused.Status.Message)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.StalledMessage(ro.Name, msg))
	h.waitCondition(aicrv1alpha1.ConditionReconciling, metav1.ConditionTrue, domain.ReasonRollingOut, "")
	writes := h.engine.WriteCount()
	assert.Equal(t, aicrv1alpha1.PhaseAwaitingAcknowledgement, h.rollout(ro.Name).Status.Phase)
	assert.Equal(t, writes, h.engine.WriteCount(), "nothing runs while waiting")
	st, err := h.engine.Status(context.Background(), release)
	require.NoError(t, err)
	assert.NotEqual(t, ro.Spec.ToPlanDigest, st.Owner.PlanDigest, "the paused release is not applied")

	h.acknowledge(ro.Name, release.ID)
	h.acknowledgeDRARestart(ro.Name)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Greater(t, h.engine.WriteCount(), writes)
	st, err = h.engine.Status(context.Background(), release)
	require.NoError(t, err)
	assert.Equal(t, ro.Spec.ToPlanDigest, st.Owner.PlanDigest, "applied once acknowledged")
}

// A manual transition whose record lists nothing besides the apply does not pause for it: there
// is nothing to acknowledge (RO-9); only the DRA driver's restart after the GPU Operator's
// upgrade is.
func TestRolloutManualWithoutRecordedStepsDoesNotPause(t *testing.T) {
	h, ro, _ := manualUpgrade(t, false)
	h.acknowledgeDRARestart(ro.Name)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	require.Len(t, done.Spec.Approval.Acknowledgements, 1, "only the DRA driver's restart was acknowledged")
	assert.Equal(t, draDriver, done.Spec.Approval.Acknowledgements[0].Release)
}
