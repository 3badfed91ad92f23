package manager_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// errPartitioned is the answer of a Lease write while the test cuts the replica off the Lease.
var errPartitioned = errors.New("the Lease is unreachable")

// TestLeaderWritesNothingOnceRenewalsStall: a replica that leads and can no longer renew its
// Lease (its writes of the Lease fail, everything else reaches the API server) has its writes
// refused once its last renewal is a renew deadline old, while its elector, which gives up a
// retry period later at the earliest, still counts it the leader; before that its writes pass.
// The retry period (2 s) is that margin: the test's writes, 100 ms apart, need to find it on a
// loaded machine, and the refused write must have been sent while the manager still ran.
func TestLeaderWritesNothingOnceRenewalsStall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	operatorNS := fmt.Sprintf("aicr-system-%d", runs.Add(1))
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}}))

	var partitioned atomic.Bool
	cfg := rest.CopyConfig(cp.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if partitioned.Load() && req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/leases") {
				return nil, errPartitioned
			}
			return rt.RoundTrip(req)
		})
	})
	mgr, err := manager.New(cfg, manager.Options{
		OperatorNamespace: operatorNS, LeaderElect: true, MetricsBindAddress: "0", HealthProbeBindAddress: "0",
		LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: 2 * time.Second,
		GracefulShutdownTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	var stoppedAt atomic.Int64 // UnixNano of the manager's return; 0 while it runs
	go func() {
		err := mgr.Start(mgrCtx)
		stoppedAt.Store(time.Now().UnixNano())
		done <- err
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Logf("the manager stopped: %v", err) // "leader election lost" once the elector gave up
		}
	})
	select {
	case <-mgr.Elected():
	case <-ctx.Done():
		t.Fatal("the replica was never elected")
	}
	write := func(name string) error {
		return mgr.GetClient().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS}})
	}
	require.NoError(t, write("while-leading"))

	partitioned.Store(true)
	refused := time.Now()
	var last error
	var sent time.Time
	for i := 0; ; i++ {
		sent = time.Now()
		if last = write(fmt.Sprintf("after-partition-%d", i)); last != nil {
			break
		}
		require.Less(t, time.Since(refused), 10*time.Second, "a write is refused within the renew deadline")
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	assert.ErrorIs(t, last, manager.ErrLeaseNotHeld)
	if at := stoppedAt.Load(); at != 0 && at <= sent.UnixNano() {
		t.Fatalf("the elector gave up %s before the fence refused a write", sent.Sub(time.Unix(0, at)))
	}
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
