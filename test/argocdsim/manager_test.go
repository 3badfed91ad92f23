package argocdsim_test

import (
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

	"github.com/nvidia/aicr-operator/adapters/argocd"
	"github.com/nvidia/aicr-operator/adapters/clock"
	"github.com/nvidia/aicr-operator/test/argocdsim"
)

func reconcileRequest(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// TestWatchModeSettlesEveryEvent: registered with a manager, the simulator
// settles an Application as soon as the engine writes it.
func TestWatchModeSettlesEveryEvent(t *testing.T) {
	t.Parallel()
	mgr, err := ctrl.NewManager(restConfig(), ctrl.Options{Scheme: c.Scheme(), Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	sim := argocdsim.New(mgr.GetClient(), argocd.DefaultNamespace, clock.NewFake(t0))
	require.NoError(t, sim.SetupWithManager(mgr))
	ctx := t.Context()
	go func() { _ = mgr.Start(ctx) }()

	ref := apply(t, "watched")
	require.Eventually(t, func() bool {
		st, statusErr := engine.Status(ctx, ref)
		return statusErr == nil && st.Ready()
	}, 30*time.Second, 20*time.Millisecond)
}

func restConfig() *rest.Config { return cfg }
