package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// A validation run still going once it has run its bound (here --validation-timeout 30m) on
// the operator's Clock is deleted and the rollout ends Failed saying it timed out; the run's
// start is the rollout's status.validationStartedAt, as the API server stores it (RO-10).
func TestRolloutValidationTimesOut(t *testing.T) {
	h := newHarness(t, true)
	h.opts.ValidationTimeout = 30 * time.Minute
	h.start()
	_, ro := h.validating(nil)
	run := ro.Name + "-validate"
	require.Eventually(t, func() bool {
		started := h.rollout(ro.Name).Status.ValidationStartedAt
		return started != nil && started.Equal(&metav1.Time{Time: epoch})
	}, waitFor, tick, "the run's start is recorded by the Clock")
	h.clock.Step(30*time.Minute - time.Second)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.ValidationMessage(ro.Name, run))
	deleted, _ := h.jobs.lifecycle(run)
	assert.False(t, deleted, "within its bound the run goes on")
	h.clock.Step(time.Second)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
	assert.Contains(t, done.Status.Message, "deployment validation run "+run+" timed out: it ran longer than 30m0s")
	assert.Empty(t, done.Annotations[aicrv1alpha1.AnnotationEvidence])
	stalled := meta.FindStatusCondition(done.Status.Conditions, aicrv1alpha1.ConditionStalled)
	require.NotNil(t, stalled)
	assert.Equal(t, string(domain.StallRolloutFailed), stalled.Reason)
	assert.Contains(t, stalled.Message, "validation.timeout")
	deleted, _ = h.jobs.lifecycle(run)
	assert.True(t, deleted, "the timed-out run is deleted, so its validator stops")
}

// A rollout whose runtime's target moves while it validates abandons its run: the Job is
// deleted, the rollout ends Superseded, and the rollout toward the new target starts its own
// validation run; the abandoned run's report, arriving late, is never used (RO-10).
func TestRolloutValidationAbandonedWhenTheTargetMoves(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, ro := h.validating(nil)
	run := ro.Name + "-validate"
	other := h.fixturePlan(fixtureUpgradeTo, string(h.runtime().UID))
	h.setCandidate(h.writePlan(other), metav1.Condition{})
	ended := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSuperseded)
	assert.Contains(t, ended.Status.Message, "deployment validation run "+run+" abandoned")
	assert.Empty(t, ended.Annotations[aicrv1alpha1.AnnotationEvidence])
	deleted, _ := h.jobs.lifecycle(run)
	assert.True(t, deleted, "the abandoned run is deleted")

	next := h.waitRollout(2)
	assert.Equal(t, other.Digest, next.Spec.ToPlanDigest)
	nextRun := next.Name + "-validate"
	require.Eventually(t, func() bool { _, ok := h.jobs.spec(nextRun); return ok }, waitFor, tick,
		"the rollout toward the new target starts its own validation run")
	spec, _ := h.jobs.spec(nextRun)
	assert.Equal(t, other.Digest, spec.Owner.PlanDigest)
	h.jobs.finish(run, ports.JobSucceeded, "", ctrfReport(t, "validate-deployment-passed.ctrf.json"))
	h.jobs.finish(nextRun, ports.JobSucceeded, "", ctrfReport(t, "validate-deployment-passed.ctrf.json"))
	done := h.waitOutcome(next.Name, aicrv1alpha1.PhaseSucceeded)
	ev, ok := h.registry.pushed(ports.Digest(done.Annotations[aicrv1alpha1.AnnotationEvidence]))
	require.True(t, ok)
	assert.Equal(t, other.Digest, ev.PlanDigest)
	assert.Equal(t, aicrv1alpha1.PhaseSuperseded, h.rollout(ro.Name).Status.Phase)
}
