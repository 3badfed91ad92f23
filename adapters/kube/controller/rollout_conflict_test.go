package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/mocks"
)

// TestReconcile_SettlingAnEndedRolloutOnAStaleCacheRequeues: settling a rollout whose outcome
// label is newer than its status in the cache loses to the status just written; like a lost
// status write of a rollout in progress, that is a quick requeue, not a reconcile error
// (RO-6).
func TestReconcile_SettlingAnEndedRolloutOnAStaleCacheRequeues(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	ro := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1",
			Labels: map[string]string{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{Steps: []aicrv1alpha1.Step{{Release: "gpu-operator", Operation: aicrv1alpha1.OperationInstall}}},
	}
	base := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ro).WithStatusSubresource(ro).Build()
	c := interceptor.NewClient(base, interceptor.Funcs{
		SubResourceUpdate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			return apierrors.NewConflict(schema.GroupResource{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"},
				obj.GetName(), nil)
		},
	})
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Now().Return(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)).AnyTimes()
	r := NewRolloutReconciler(c, domain.Ports{Clock: clock}, nil, record.NewFakeRecorder(8), Options{})

	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)})

	require.NoError(t, err, "a conflict is the cache being behind, not an error to log")
	assert.Equal(t, conflictRetry, res.RequeueAfter)
}
