package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

func validationRequired(cr *aicrv1alpha1.ClusterRuntime) {
	cr.Spec.Validation.Deployment = aicrv1alpha1.ValidationRequired
}

// validating installs a plan with validation Required and waits for the validation run.
func (h *harness) validating() (string, *aicrv1alpha1.RuntimeRollout) {
	h.t.Helper()
	uid := h.createRuntime(validationRequired)
	digest := h.writePlan(h.fixturePlan(fixtureInstall, uid))
	h.setCandidate(digest, metav1.Condition{})
	ro := h.waitRollout(1)
	ro = h.waitPhase(ro.Name, aicrv1alpha1.PhaseValidating)
	run := ro.Name + "-validate"
	assert.Equal(h.t, run, ro.Status.ValidationRun)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.ValidationMessage(ro.Name, run))
	require.Eventually(h.t, func() bool { return h.jobs.started(run) }, waitFor, tick)
	return digest, ro
}

// A validated success records the evidence annotation once and the runtime is RolledOut (RO-6, RO-10, CR-8).
func TestRolloutValidationSuccess(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	digest, ro := h.validating()
	h.jobs.finish(ro.Name+"-validate", ports.JobSucceeded, "")
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, done.Annotations[aicrv1alpha1.AnnotationEvidence])
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonRolledOut, "plan "+digest+" rolled out and validated")
	h.waitKstatus(status.CurrentStatus)
}

// A failed validation ends the rollout Failed and stalls the runtime (RO-10, RO-11).
func TestRolloutValidationFailure(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, ro := h.validating()
	h.jobs.finish(ro.Name+"-validate", ports.JobFailed, "2 checks failed")
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
	assert.Empty(t, done.Annotations[aicrv1alpha1.AnnotationEvidence])
	msg := "rollout " + ro.Name + " failed: deployment validation run " + ro.Name + "-validate failed: 2 checks failed"
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutFailed), msg)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.StalledMessage(ro.Name, msg))
	h.waitKstatus(status.FailedStatus)
}

// Validation Required on the runtime with the chart's validation disabled stalls the rollout
// ValidationUnavailable before any step runs (RO-10).
func TestRolloutValidationUnavailable(t *testing.T) {
	h := newHarness(t, true)
	h.opts.ValidationEnabled = false
	h.start()
	uid := h.createRuntime(validationRequired)
	h.setCandidate(h.writePlan(h.fixturePlan(fixtureInstall, uid)), metav1.Condition{})
	ro := h.waitRollout(1)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallValidationUnavailable), "")
	require.Eventually(t, func() bool {
		c := findCondition(h.rollout(ro.Name).Status.Conditions, "Stalled")
		return c != nil && c.Reason == string(domain.StallValidationUnavailable)
	}, waitFor, tick)
	assert.Zero(t, h.engine.writeCount(), "no step runs")
	h.waitKstatus(status.FailedStatus)
}
