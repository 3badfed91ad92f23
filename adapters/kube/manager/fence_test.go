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
		LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second,
		GracefulShutdownTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
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
	for i := 0; ; i++ {
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
	select {
	case err := <-done:
		done <- err
		t.Fatalf("the elector gave up before the fence refused a write: %v", err)
	default:
	}
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
