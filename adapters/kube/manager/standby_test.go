package manager_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestStandbyReplicaIsReadyWithoutLeading: with leader election, a second replica that cannot
// take the lease passes /readyz once its caches synced, as the leader does, and stays a standby:
// holding its readiness until it leads would deadlock a rolling update, whose new Pod can lead
// only once the old one is gone.
func TestStandbyReplicaIsReadyWithoutLeading(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	operatorNS := fmt.Sprintf("aicr-system-%d", runs.Add(1))
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}}))

	start := func() (ctrl.Manager, string) {
		addr := freeAddress(t)
		mgr, err := manager.New(cp.Config, manager.Options{
			OperatorNamespace: operatorNS, LeaderElect: true, MetricsBindAddress: "0", HealthProbeBindAddress: addr,
			LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
			GracefulShutdownTimeout: 10 * time.Second,
		})
		require.NoError(t, err)
		mgrCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- mgr.Start(mgrCtx) }()
		t.Cleanup(func() {
			stop()
			assert.NoError(t, <-done)
		})
		return mgr, addr
	}
	leader, leaderAddr := start()
	select {
	case <-leader.Elected():
	case <-ctx.Done():
		t.Fatal("the first replica was never elected")
	}
	standby, standbyAddr := start()

	for name, addr := range map[string]string{"leader": leaderAddr, "standby": standbyAddr} {
		require.Eventually(t, func() bool {
			code, _ := probe(ctx, t, addr, "/readyz")
			return code == http.StatusOK
		}, 30*time.Second, 50*time.Millisecond, "the %s is ready once its caches synced", name)
		_, body := probe(ctx, t, addr, "/readyz")
		assert.Contains(t, body, "[+]caches ok", name)
	}
	select {
	case <-standby.Elected():
		t.Fatal("the standby took the lease the leader holds")
	default:
	}
}
