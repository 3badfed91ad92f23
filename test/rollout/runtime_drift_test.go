package rollout_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestRuntime_JudgesEngineObjectsAgainstThePlan: the runtime is Ready only while every engine
// object of the active plan asks for the spec the plan renders: one edited by hand, still synced
// and healthy and recording the plan, makes it not Ready and Stalled EngineObjectDrifted (no
// rollout is there to write it again) with a Warning, and not Available at its plan; undone,
// it is Ready again. An engine object
// in the operator's project that no plan names makes EngineObjectsPlanned False with a Warning
// naming it.
func TestRuntime_JudgesEngineObjectsAgainstThePlan(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	h.waitCondition(aicrv1alpha1.ConditionEngineObjectsPlanned, metav1.ConditionTrue, domain.ReasonEveryEngineObjectPlanned, "")

	var edited ports.ReleaseRef
	var planned string
	h.engine.Mu.Lock()
	for ref, st := range h.engine.Objs {
		edited, planned = ref, st.SpecDigest
		st.SpecDigest = "sha256:edited"
		h.engine.Objs[ref] = st
		break
	}
	h.engine.Mu.Unlock()
	h.reconcileAgain()
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallEngineObjectDrifted), "")
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallEngineObjectDrifted), "")
	h.waitEvent(uid, corev1.EventTypeWarning, string(domain.StallEngineObjectDrifted), edited.String())
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionFalse, "ReleaseUnavailable",
		"release "+edited.ID+" asks for another spec than its plan renders")

	h.engine.Mu.Lock()
	st := h.engine.Objs[edited]
	st.SpecDigest = planned
	h.engine.Objs[edited] = st
	h.engine.Objs[ports.ReleaseRef{ID: "out-of-band", Namespace: "elsewhere"}] = ports.ReleaseStatus{
		Ref: ports.ReleaseRef{ID: "out-of-band", Namespace: "elsewhere"}}
	h.engine.Mu.Unlock()
	h.reconcileAgain()
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	h.waitCondition(aicrv1alpha1.ConditionEngineObjectsPlanned, metav1.ConditionFalse, domain.ReasonUnplannedEngineObjects, "")
	h.waitEvent(uid, corev1.EventTypeWarning, domain.EventUnplannedEngineObjects.String(), "elsewhere/out-of-band")
}
