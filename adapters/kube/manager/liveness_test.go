package manager_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/mocks"
)

// fakeNow is the time a gomock Clock reports; tests move it.
type fakeNow struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeNow) get() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }

func (f *fakeNow) add(d time.Duration) { f.mu.Lock(); defer f.mu.Unlock(); f.now = f.now.Add(d) }

// blockingReconciler reports each reconcile it starts and returns once released.
type blockingReconciler struct {
	started chan struct{}
	release chan struct{}
}

func (b blockingReconciler) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	b.started <- struct{}{}
	<-b.release
	return reconcile.Result{}, nil
}

// TestLivenessFailsOnlyWhileAReconcileIsStale: healthy when idle, healthy with a fresh
// reconcile in flight, unhealthy once it is older than the bound (naming the controller and
// the request), healthy again once it completed.
func TestLivenessFailsOnlyWhileAReconcileIsStale(t *testing.T) {
	t.Parallel()
	now := &fakeNow{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Now().DoAndReturn(now.get).AnyTimes()
	l := manager.NewLiveness(clock, 6*time.Minute)
	require.NoError(t, l.Check(nil), "idle")

	inner := blockingReconciler{started: make(chan struct{}), release: make(chan struct{})}
	r := l.Track("resolver", inner)
	done := make(chan error)
	go func() {
		_, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "cluster"}})
		done <- err
	}()
	<-inner.started
	require.NoError(t, l.Check(nil), "a fresh reconcile in flight")
	now.add(6 * time.Minute)
	require.NoError(t, l.Check(nil), "at the bound, not past it")
	now.add(time.Second)
	err := l.Check(nil)
	require.Error(t, err, "past the bound")
	assert.Contains(t, err.Error(), "controller resolver has not completed its reconcile of cluster started 6m1s ago (bound 6m0s)")

	close(inner.release)
	require.NoError(t, <-done)
	assert.NoError(t, l.Check(nil), "the reconcile completed")
}

// TestLivenessNamesTheOldestStaleReconcile: of several reconciles in flight the check reports
// the oldest past the bound; one that fails (returns an error) is no longer in flight either.
func TestLivenessNamesTheOldestStaleReconcile(t *testing.T) {
	t.Parallel()
	now := &fakeNow{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Now().DoAndReturn(now.get).AnyTimes()
	l := manager.NewLiveness(clock, time.Minute)
	errBoom := errors.New("boom")
	failing := l.Track("retention", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, errBoom
	}))
	_, err := failing.Reconcile(context.Background(), reconcile.Request{})
	require.ErrorIs(t, err, errBoom)

	inner := blockingReconciler{started: make(chan struct{}), release: make(chan struct{})}
	r := l.Track("runtimerollout", inner)
	var wg sync.WaitGroup
	for _, name := range []string{"rollout-a-1", "rollout-b-1"} {
		wg.Go(func() {
			_, _ = r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
		})
		<-inner.started
		now.add(30 * time.Second)
	}
	now.add(31 * time.Second) // rollout-a-1 is 91s old, rollout-b-1 61s
	err = l.Check(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "started 1m31s ago")
	close(inner.release)
	wg.Wait()
	assert.NoError(t, l.Check(nil))
}

// BenchmarkLivenessTrack measures what tracking adds to one reconcile (record, clock, delete).
func BenchmarkLivenessTrack(b *testing.B) {
	now := &fakeNow{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	clock := mocks.NewMockClock(gomock.NewController(b))
	clock.EXPECT().Now().DoAndReturn(now.get).AnyTimes()
	r := manager.NewLiveness(clock, time.Minute).Track("bench", reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, nil
	}))
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: "cluster"}}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.Reconcile(context.Background(), req)
	}
}
