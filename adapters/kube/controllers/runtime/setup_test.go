package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// recordingQueue records what a handler adds, at once or after a delay.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	added []reconcile.Request
	after []time.Duration
}

func (q *recordingQueue) Add(r reconcile.Request) { q.added = append(q.added, r) }

func (q *recordingQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.added = append(q.added, r)
	q.after = append(q.after, d)
}

// TestRolloutHandler: every rollout event reconciles the one runtime; a change of a rollout's
// status alone does after rolloutStatusDelay, any other change at once: one runtime
// status write for the steps of a fast rollout, not one per step.
func TestRolloutHandler(t *testing.T) {
	rollout := func(generation int64, outcome string) *aicrv1alpha1.RuntimeRollout {
		ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1", Generation: generation}}
		if outcome != "" {
			ro.Labels = map[string]string{aicrv1alpha1.LabelOutcome: outcome}
		}
		return ro
	}
	ctx, h := context.Background(), rolloutHandler()
	tests := []struct {
		name      string
		send      func(q *recordingQueue)
		wantAfter []time.Duration
	}{
		{name: "created: at once", send: func(q *recordingQueue) {
			h.Create(ctx, event.CreateEvent{Object: rollout(1, "")}, q)
		}},
		{name: "status changed: after the delay", wantAfter: []time.Duration{rolloutStatusDelay}, send: func(q *recordingQueue) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: rollout(1, ""), ObjectNew: rollout(1, "")}, q)
		}},
		{name: "spec changed: at once", send: func(q *recordingQueue) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: rollout(1, ""), ObjectNew: rollout(2, "")}, q)
		}},
		{name: "outcome label set: at once", send: func(q *recordingQueue) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: rollout(1, ""), ObjectNew: rollout(1, "Succeeded")}, q)
		}},
		{name: "deleted: at once", send: func(q *recordingQueue) {
			h.Delete(ctx, event.DeleteEvent{Object: rollout(1, "")}, q)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := &recordingQueue{}
			tt.send(got)
			assert.Equal(t, []reconcile.Request{{NamespacedName: types.NamespacedName{Name: aicrv1alpha1.ClusterRuntimeName}}}, got.added)
			assert.Equal(t, tt.wantAfter, got.after)
		})
	}
}
