package rollout_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// A rollout restored from a backup while in progress comes back without status, so Pending at
// its first step, and the live inventory differs from its starting inventory by the step it
// wrote. Its own writes explain the drift: it resumes with the approval it carries instead of
// stalling InventoryDrift, and the step it wrote is not written again (RO-12, RO-13).
func TestRolloutRestoredInProgress(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid, _ := h.installed(nil)
	b, ro := h.upgrade(uid)
	written := stepCounts(ro)[aicrv1alpha1.OperationRemove] + 1 // the removals and the first upgrade
	require.Less(t, written, len(ro.Spec.Steps))
	var writes atomic.Int32
	stopped := make(chan struct{})
	h.engine.Mu.Lock()
	h.engine.OnWrite = func(ctx context.Context, _ string) {
		if int(writes.Add(1)) == written {
			close(stopped)
			<-ctx.Done() // the reconcile that wrote never records it
		}
	}
	h.engine.Mu.Unlock()
	before := h.engine.WriteCount()
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	// Acknowledged ahead, so the steps go on without a pause: the case is about the restore.
	h.acknowledge(ro.Name, draDriver)
	select {
	case <-stopped:
	case <-time.After(waitFor):
		require.FailNow(t, "the first upgrade was never written", "%+v", h.rollout(ro.Name).Status)
	}
	h.stop()
	h.engine.Mu.Lock()
	h.engine.OnWrite = nil
	h.engine.Mu.Unlock()

	h.restoreWithoutStatus(ro.Name)
	assert.Empty(t, h.rollout(ro.Name).Status.Phase, "restored without status")

	h.start()
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Equal(t, len(ro.Spec.Steps), h.engine.WriteCount()-before, "every step written exactly once")
	assert.Equal(t, approver, done.Spec.Approval.ApprovedBy, "the restored approval is used")
	live := h.liveReleases()
	assert.Len(t, live, len(b.Releases))
	for _, rel := range b.Releases {
		assert.Equal(t, b.Digest, live[rel.ID].Owner.PlanDigest, rel.ID)
	}
	assert.Len(t, h.rollouts(), 2, "no second rollout")
}

// restoreWithoutStatus deletes the rollout and creates it again as a backup restores it:
// metadata and spec, no status.
func (h *harness) restoreWithoutStatus(name string) {
	h.t.Helper()
	ctx := context.Background()
	backup := h.rollout(name)
	require.NoError(h.t, k8s.Delete(ctx, backup))
	require.Eventually(h.t, func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: name}, &aicrv1alpha1.RuntimeRollout{}))
	}, waitFor, tick)
	require.NoError(h.t, k8s.Create(ctx, &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: backup.Name, Labels: backup.Labels, Annotations: backup.Annotations,
			OwnerReferences: backup.OwnerReferences},
		Spec: backup.Spec,
	}))
}
