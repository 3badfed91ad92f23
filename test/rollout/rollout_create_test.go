package rollout_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/runtime"
	"github.com/NVIDIA/aicr/domain"
)

var errDropped = errors.New("connection reset by peer")

// Lost create: one creator's create lands but its response is dropped, the other is told
// AlreadyExists before it writes; run concurrently, they end with exactly one rollout (RO-1).
func TestRolloutLostCreate(t *testing.T) {
	cleanCluster(t)
	const uid = "0b6f3c1e-5d2a-4c8e-9f00-6a1b2c3d4e5f"
	digest := "sha256:" + "ab" + zeros[2:]
	template := &aicrv1alpha1.RuntimeRollout{Spec: aicrv1alpha1.RuntimeRolloutSpec{
		RuntimeUID: uid, ToPlanDigest: digest, Deadline: metav1.NewTime(epoch.Add(time.Hour)),
		Steps: []aicrv1alpha1.Step{{Release: "cert-manager", Operation: aicrv1alpha1.OperationInstall}},
	}}
	var writes atomic.Int64
	var droppedOnce, conflictOnce sync.Once
	dropping := countingClient{Client: k8s, writes: &writes, onCreate: func(ctx context.Context, obj client.Object) error {
		var err error
		droppedOnce.Do(func() {
			if err = k8s.Create(ctx, obj.DeepCopyObject().(client.Object)); err == nil {
				err = errDropped
			}
		})
		return err
	}}
	conflicting := countingClient{Client: k8s, writes: &writes, onCreate: func(_ context.Context, obj client.Object) error {
		var err error
		conflictOnce.Do(func() {
			err = apierrors.NewAlreadyExists(schema.GroupResource{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"}, obj.GetName())
		})
		return err
	}}
	creators := []*runtime.RolloutCreator{
		runtime.NewRolloutCreator(k8s, dropping), runtime.NewRolloutCreator(k8s, conflicting),
	}
	names := make([]string, len(creators))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, c := range creators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 3 { // a dropped response is retried by the next reconcile
				name, _, err := c.Ensure(context.Background(), template)
				if err == nil {
					names[i] = name
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	var list aicrv1alpha1.RuntimeRolloutList
	require.NoError(t, k8s.List(context.Background(), &list))
	require.Len(t, list.Items, 1, "exactly one rollout object")
	want := domain.RolloutName(domain.TransitionID(uid, "", digest), 1)
	assert.Equal(t, want, list.Items[0].Name)
	assert.Equal(t, []string{want, want}, names)
	assert.Equal(t, domain.TransitionID(uid, "", digest), list.Items[0].Labels[aicrv1alpha1.LabelTransition])
}
