package argocdsim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

func reconcileRequest(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// TestWatchModeSettlesEveryEvent: registered with a manager, the simulator
// settles an Application as soon as the engine writes it. It does not run in
// parallel: in watch mode the simulator settles every Application of the
// namespace, those of TestModes included, and it has stopped before they run.
func TestWatchModeSettlesEveryEvent(t *testing.T) {
	mgr, err := ctrl.NewManager(restConfig(), ctrl.Options{Scheme: c.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	sim := argocdsim.New(mgr.GetClient(), argocd.DefaultNamespace, clock.NewFake(t0))
	require.NoError(t, sim.SetupWithManager(mgr))
	ctx, stop := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { _ = mgr.Start(ctx); close(stopped) }()
	t.Cleanup(func() { stop(); <-stopped })

	ref := apply(t, "watched")
	require.Eventually(t, func() bool {
		st, statusErr := engine.Status(ctx, ref)
		return statusErr == nil && st.Ready()
	}, 30*time.Second, 20*time.Millisecond)
}

func restConfig() *rest.Config { return cfg }
