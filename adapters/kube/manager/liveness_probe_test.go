package manager_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/mocks"
)

// probe returns the status code and body of the manager's probe endpoint path (/healthz,
// /readyz), polling until the probe server answers (it starts with the manager,
// asynchronously).
func probe(ctx context.Context, t *testing.T, addr, path string) (int, string) {
	t.Helper()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path+"?verbose", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			return resp.StatusCode, string(body)
		}
		select {
		case <-ctx.Done():
			require.NoError(t, ctx.Err(), "the probe server never answered")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestManagerRunsReconcilesUnderADeadlineAndProbesThem: every reconcile's context carries the
// manager's reconcile deadline, /readyz passes once the caches synced, and /healthz fails while a tracked reconcile has been in flight
// longer than the liveness bound, then passes again once it completed.
func TestManagerRunsReconcilesUnderADeadlineAndProbesThem(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	operatorNS := fmt.Sprintf("aicr-system-%d", runs.Add(1))
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}}))

	now := &fakeNow{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Now().DoAndReturn(now.get).AnyTimes()
	liveness := manager.NewLiveness(clock, 6*time.Minute)
	addr := freeAddress(t)
	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: operatorNS, MetricsBindAddress: "0", HealthProbeBindAddress: addr,
		ReconcileTimeout: 5 * time.Minute, Liveness: liveness, GracefulShutdownTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	deadlines := make(chan bool, 1)
	release := make(chan struct{})
	r := reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
		_, ok := ctx.Deadline()
		deadlines <- ok
		<-release
		return reconcile.Result{}, nil
	})
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named("probe").For(&corev1.ConfigMap{}).
		Complete(liveness.Track("probe", r)))
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()

	code, body := probe(ctx, t, addr, "/healthz")
	require.Equal(t, http.StatusOK, code, "idle: %s", body)
	code, body = probe(ctx, t, addr, "/readyz")
	require.Equal(t, http.StatusOK, code, "ready once the caches synced: %s", body)
	assert.Contains(t, body, "[+]caches ok")
	require.NoError(t, admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "plan", Namespace: operatorNS, Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan}}}))
	assert.True(t, <-deadlines, "the reconcile runs under a deadline")
	code, body = probe(ctx, t, addr, "/healthz")
	assert.Equal(t, http.StatusOK, code, "a fresh reconcile in flight: %s", body)

	now.add(6*time.Minute + time.Second)
	code, body = probe(ctx, t, addr, "/healthz")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "[-]reconciles failed")

	close(release)
	assert.Eventually(t, func() bool { // the reconcile returns asynchronously
		code, _ := probe(ctx, t, addr, "/healthz")
		return code == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "healthy once the reconcile completed")
	stop()
	require.NoError(t, <-done)
}
