package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// updateRuntime changes the live ClusterRuntime (spec, metadata) as an admin.
func (h *harness) updateRuntime(mutate func(cr *aicrv1alpha1.ClusterRuntime)) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		cr := h.runtime()
		mutate(cr)
		return k8s.Update(context.Background(), cr) == nil
	}, waitFor, tick)
}

// Every Ready message of CR-8 on the live ClusterRuntime, Stalled mirroring a failed Resolved
// (CR-10), EngineAvailable, Available (CR-9) and kstatus (OPS-3), walked on one runtime.
func TestRuntimeConditionMessages(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid := h.createRuntime(nil)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonNoActivePlan, "no plan is rolled out yet")
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionFalse, domain.ReasonNoActivePlan, "")

	h.setCandidate("", metav1.Condition{Status: metav1.ConditionFalse, Reason: "AICRInternal", Message: "recipe job failed: internal error"})
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, "AICRInternal", "recipe job failed: internal error")
	h.waitKstatus(status.FailedStatus)
	h.setCandidate("", metav1.Condition{Status: metav1.ConditionFalse, Reason: domain.ReasonResolving, Message: "snapshot job running"})
	h.waitCondition(aicrv1alpha1.ConditionReconciling, metav1.ConditionTrue, domain.ReasonNoActivePlan, "")
	assert.Nil(t, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled), "Resolving never stalls")
	h.waitKstatus(status.InProgressStatus)

	plan := h.fixturePlan(fixtureInstall, uid)
	name := "aicr-plan-" + plan.Digest[len("sha256:"):len("sha256:")+16]
	h.setCandidate(plan.Digest, metav1.Condition{})
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallPlanUnreadable),
		"plan "+plan.Digest+": ConfigMap "+operatorNamespace+"/"+name+" not found")
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallPlanUnreadable), "")

	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Paused = true })
	h.writePlan(plan)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonPaused, "the runtime is paused (spec.paused)")
	assert.Empty(t, h.rollouts(), "a paused runtime starts no rollout")

	h.failCreate.Store(true)
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Paused = false })
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.NotRolledOutMessage(plan.Digest))

	h.engine.Mu.Lock()
	h.engine.Missing = true
	h.engine.Mu.Unlock()
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.SuspendEngine = true })
	h.waitCondition(aicrv1alpha1.ConditionEngineAvailable, metav1.ConditionFalse, string(domain.StallEngineMissing), "")
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallEngineMissing),
		"deployment engine: application kind not served: "+ports.ErrEngineMissing.Error())
	h.waitKstatus(status.FailedStatus)

	h.engine.Mu.Lock()
	h.engine.Missing = false
	h.engine.Mu.Unlock()
	h.failCreate.Store(false)
	// No event announces the engine's return: the runtime polls while it is missing (ENG-4).
	h.waitCondition(aicrv1alpha1.ConditionEngineAvailable, metav1.ConditionTrue, "EngineReady", "")
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonEngineSuspended,
		"automated sync is suspended: the runtime has no engine object (spec.suspendEngine)")
	assert.Empty(t, h.rollouts(), "no rollout is created while the engine is suspended")

	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.SuspendEngine = false })
	ro := h.waitRollout(1)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")

	bad := plan.Releases[0].ID
	h.engine.Mu.Lock()
	h.engine.Degraded[bad] = true
	h.engine.Mu.Unlock()
	h.engine.Settle()
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Annotations = map[string]string{"test/touch": "2"} })
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonNotReady, "a release of plan "+plan.Digest+" is not ready")
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionFalse, "ReleaseUnavailable", "release "+bad+" is not healthy")

	const hold = "test.aicr.run/hold"
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Finalizers = append(cr.Finalizers, hold) })
	require.NoError(t, k8s.Delete(context.Background(), h.runtime()))
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonDeleting, "the ClusterRuntime is being deleted")
	h.updateRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Finalizers = nil })
	require.Eventually(t, func() bool {
		return client.IgnoreNotFound(k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &aicrv1alpha1.ClusterRuntime{})) == nil &&
			k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &aicrv1alpha1.ClusterRuntime{}) != nil
	}, waitFor, tick)
}
