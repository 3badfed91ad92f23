package rollout

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// staleReader serves the rollouts of its client with their status replaced, as a cache that
// has not seen the last status write does.
type staleReader struct {
	client.Client
	status aicrv1alpha1.RuntimeRolloutStatus
}

// Get reads obj and gives it the stale status.
func (s staleReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := s.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if ro, ok := obj.(*aicrv1alpha1.RuntimeRollout); ok {
		ro.Status = s.status
	}
	return nil
}

// TestReconcile_SettlingAnEndedRollout: a rollout whose outcome label is newer than its status
// in the cache is read live before its status is settled: when the live status already
// records the outcome nothing is written; a settle that loses to a newer write is decided
// again on the rollout read live, and when it keeps losing it is requeued with backoff, not
// logged as a reconcile error (RO-6; no fixed retry loop).
func TestReconcile_SettlingAnEndedRollout(t *testing.T) {
	progressing := aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 1}
	settled := aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseSucceeded, Message: "every step finished"}
	tests := []struct {
		name        string
		live        aicrv1alpha1.RuntimeRolloutStatus
		conflict    bool
		wantWrites  int
		wantRequeue time.Duration
		wantPhase   aicrv1alpha1.Phase
	}{
		{name: "only the cache is behind: nothing is written", live: settled, wantPhase: aicrv1alpha1.PhaseSucceeded},
		{name: "the status lags (a crash after the label): it is settled", live: progressing, wantWrites: 1,
			wantPhase: aicrv1alpha1.PhaseSucceeded},
		{name: "the settle keeps losing to newer writes: decided again live, then a backoff requeue", live: progressing,
			conflict: true, wantWrites: 1 + maxConflicts, wantRequeue: 5 * time.Millisecond, wantPhase: aicrv1alpha1.PhaseProgressing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
			ro := &aicrv1alpha1.RuntimeRollout{
				ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1",
					Labels: map[string]string{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)}},
				Spec:   aicrv1alpha1.RuntimeRolloutSpec{Steps: []aicrv1alpha1.Step{{Release: "gpu-operator", Operation: aicrv1alpha1.OperationInstall}}},
				Status: tt.live,
			}
			base := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ro).WithStatusSubresource(ro).Build()
			writes := 0
			c := interceptor.NewClient(base, interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					writes++
					if tt.conflict {
						return apierrors.NewConflict(schema.GroupResource{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"},
							obj.GetName(), nil)
					}
					return cl.SubResource(sub).Update(ctx, obj, opts...)
				},
			})
			clock := mocks.NewMockClock(gomock.NewController(t))
			clock.EXPECT().Now().Return(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)).AnyTimes()
			cached := staleReader{Client: c, status: progressing}
			r := NewReconciler(cached, base, domain.Ports{Clock: clock, Sealer: sealtest.New()}, nil, record.NewFakeRecorder(8), shared.Options{})

			res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)})

			require.NoError(t, err, "a conflict is a cache behind a newer write, not an error to log")
			assert.Equal(t, tt.wantRequeue, res.RequeueAfter)
			assert.Equal(t, tt.wantWrites, writes)
			got := &aicrv1alpha1.RuntimeRollout{}
			require.NoError(t, base.Get(context.Background(), client.ObjectKeyFromObject(ro), got))
			assert.Equal(t, tt.wantPhase, got.Status.Phase)
		})
	}
}

// TestReconcile_ConflictsBackOff: a rollout whose writes keep losing is requeued after a delay
// that doubles with each reconcile that lost (no fixed retry loop), and shows Retrying.
func TestReconcile_ConflictsBackOff(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	ro := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-2",
			Labels: map[string]string{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)}},
		Status: aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing},
	}
	base := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ro).WithStatusSubresource(ro).Build()
	c := interceptor.NewClient(base, interceptor.Funcs{
		SubResourceUpdate: func(context.Context, client.Client, string, client.Object, ...client.SubResourceUpdateOption) error {
			return apierrors.NewConflict(schema.GroupResource{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"},
				ro.Name, nil)
		},
	})
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Now().Return(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)).AnyTimes()
	r := NewReconciler(c, base, domain.Ports{Clock: clock, Sealer: sealtest.New()}, nil, record.NewFakeRecorder(32), shared.Options{})
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)}
	var delays []time.Duration
	for range 3 {
		res, err := r.Reconcile(context.Background(), req)
		require.NoError(t, err)
		delays = append(delays, res.RequeueAfter)
	}
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, delays)
	got := &aicrv1alpha1.RuntimeRollout{}
	require.NoError(t, base.Get(context.Background(), req.NamespacedName, got))
	cond := meta.FindStatusCondition(got.Status.Conditions, shared.CondRetrying)
	require.NotNil(t, cond, "a rollout whose writes keep losing shows Retrying")
	assert.Equal(t, shared.ReasonAPIServerError, cond.Reason)
	assert.Contains(t, cond.Message, "lost to newer versions 3 times in a row")
}
