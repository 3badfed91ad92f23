package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// The message saying why a rollout ended is recorded with its outcome label, so a crash
// between the label and the status, or a restore without status, does not lose it (RO-6,
// RO-13); a superseded rollout is Ready, kstatus Current (OPS-3).
func TestRolloutOutcomeMessageSurvivesTheStatus(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)
	h.setCandidate(h.writePlan(h.fixturePlan(fixtureInstall, uid)), metav1.Condition{})
	ended := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSuperseded)
	why := ended.Annotations[aicrv1alpha1.AnnotationOutcomeMessage]
	require.NotEmpty(t, why)
	assert.Equal(t, ended.Status.Message, why)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(h.rollout(ro.Name))
	require.NoError(t, err)
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	require.NoError(t, err)
	assert.Equal(t, status.CurrentStatus, res.Status, "a superseded rollout has nothing left to do (OPS-3)")
	h.stop()

	ctx := context.Background()
	stale := h.rollout(ro.Name)
	stale.Status.Phase, stale.Status.Message = aicrv1alpha1.PhaseAwaitingApproval, "waiting for an approver"
	require.NoError(t, k8s.Status().Update(ctx, stale), "the status as a crash after the label left it")
	h.start()
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseSuperseded)
	assert.Equal(t, why, h.rollout(ro.Name).Status.Message, "the recorded message, not the stale one")
	h.stop()

	h.restoreWithoutStatus(ro.Name)
	h.start()
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseSuperseded)
	assert.Equal(t, "restored: "+why, h.rollout(ro.Name).Status.Message)
}
