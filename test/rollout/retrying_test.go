package rollout_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// A transient failure of a driven port (the engine's API unreachable) shows on the runtime and
// on the rollout in flight as the Retrying condition, naming what is waited on and the last
// error, while Ready keeps its status and reason; once the engine answers again the condition
// is removed from both.
func TestTransientFailureShowsAsRetryingUntilAReconcileSucceeds(t *testing.T) {
	h := newHarness(t, false)
	h.start()
	uid := h.createRuntime(nil)
	digest := h.writePlan(h.fixturePlan(fixtureInstall, uid))
	h.setCandidate(digest, metav1.Condition{})
	ro := h.waitRollout(1)
	h.waitReleaseState(ro.Name, ro.Spec.Steps[0].Release, aicrv1alpha1.ReleaseInFlight)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, "")
	runtimeReady := *findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionReady)
	var rolloutReady *metav1.Condition
	require.Eventually(t, func() bool {
		rolloutReady = findCondition(h.rollout(ro.Name).Status.Conditions, shared.CondReady)
		return rolloutReady != nil
	}, waitFor, tick, "the rollout reports Ready")

	unreachable := errors.New("dial tcp 10.0.0.1:443: connect: connection refused")
	h.engine.Mu.Lock()
	h.engine.Unreachable = unreachable
	h.engine.Mu.Unlock()
	// Nothing about the runtime changes while the engine is down: an annotation has it
	// reconciled; its failures are then retried with backoff.
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Annotations = map[string]string{"example.com/touched": "yes"}
	})
	want := shared.RetryingCondition(errors.New("deployment engine: " + unreachable.Error()))
	h.waitCondition(shared.CondRetrying, metav1.ConditionTrue, shared.ReasonTransientError, want.Message)
	var got *metav1.Condition
	require.Eventually(t, func() bool {
		got = findCondition(h.rollout(ro.Name).Status.Conditions, shared.CondRetrying)
		return got != nil && got.Status == metav1.ConditionTrue && got.Reason == shared.ReasonTransientError
	}, waitFor, tick, "the rollout never showed Retrying (last: %+v)", got)
	assert.Contains(t, got.Message, unreachable.Error())
	assert.Contains(t, got.Message, "waiting for a dependency")
	for name, c := range map[string]struct{ before, now *metav1.Condition }{
		"runtime": {&runtimeReady, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionReady)},
		"rollout": {rolloutReady, findCondition(h.rollout(ro.Name).Status.Conditions, shared.CondReady)},
	} {
		require.NotNil(t, c.now, name)
		assert.Equal(t, c.before.Status, c.now.Status, "the %s's Ready keeps its status", name)
		assert.Equal(t, c.before.Reason, c.now.Reason, "the %s's Ready keeps its reason", name)
	}

	h.engine.Mu.Lock()
	h.engine.Unreachable = nil
	h.engine.Mu.Unlock()
	require.Eventually(t, func() bool {
		return findCondition(h.runtime().Status.Conditions, shared.CondRetrying) == nil &&
			findCondition(h.rollout(ro.Name).Status.Conditions, shared.CondRetrying) == nil
	}, waitFor, tick, "Retrying is removed once a reconcile succeeds")
	h.waitCondition(aicrv1alpha1.ConditionReady, runtimeReady.Status, runtimeReady.Reason, "")
}
