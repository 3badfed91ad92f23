package rollout_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// Kill-and-restart: the manager is stopped right after each step's engine write (before the
// rollout's status records it) and a new one started. The rollout completes with exactly one
// engine write per step and the same approval (RO-12). On both engines: on Argo CD a Remove is
// stopped between its cascade finalizer and its Delete, and each new manager starts with a cache
// of its own.
func TestRolloutKillAndRestart(t *testing.T) {
	onEachEngine(t, true, testRolloutKillAndRestart)
}

func testRolloutKillAndRestart(t *testing.T, h *harness) {
	h.start()
	uid, _ := h.installed(nil)
	_, ro := h.upgrade(uid)
	wrote := make(chan string, 1)
	h.world.onWrite(func(ctx context.Context) {
		select { // a write while the test stops this manager is not waited for
		case wrote <- "":
		case <-ctx.Done():
		}
		<-ctx.Done() // the reconcile that wrote never records it: it ends with the manager
	})
	before := h.world.writeCount()
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	// Acknowledged ahead, so every step writes without a pause: the case is about restarts.
	h.acknowledge(ro.Name, draDriver)
	approval := h.rollout(ro.Name).Spec.Approval.DeepCopy()
	restarts := 0
	for restarts < len(ro.Spec.Steps) {
		select {
		case <-wrote:
		case <-time.After(waitFor):
			live := h.rollout(ro.Name)
			require.FailNow(t, "no engine write", "after %d restarts of %d steps: %+v", restarts, len(live.Spec.Steps), live.Status)
		}
		h.stop()
		restarts++
		h.start()
	}
	h.world.onWrite(nil)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Equal(t, len(ro.Spec.Steps), h.world.writeCount()-before, "every step written exactly once")
	assert.Equal(t, approval, done.Spec.Approval, "the approval is reused")
	assert.Len(t, h.rollouts(), 2, "no second rollout")
}
