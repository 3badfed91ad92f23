package rollout_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// argoWorld is Argo CD for a test: its CRDs (installed by TestMain), the engine namespace and
// AppProject, and the status simulator in its own manager, which outlives operator restarts.
// It counts the operator's Application writes and, once timeline is set, records when each was
// written and reported healthy.
type argoWorld struct {
	dc discovery.DiscoveryInterface
	// reader reads the engine objects through the adapter without a cache.
	reader *argocd.Engine
	sim    *argocdsim.Sim
	writes atomic.Int64
	// createdAgain counts the operator's Creates of an Application that existed already: a write
	// decided from a cache that had not seen the first.
	createdAgain atomic.Int64
	mu           sync.Mutex
	hook         func(ctx context.Context)
	timeline     *appTimeline
	// degraded are the releases that settle Degraded (degrade).
	degraded map[ports.ReleaseRef]bool
	// order, when set, checks each step's start against the step before (checkOrder).
	order *stepOrder
}

// withArgo switches the harness to the Argo CD engine and starts the simulator.
func (h *harness) withArgo() {
	h.t.Helper()
	ctx := context.Background()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultNamespace}},
		&argov1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultProject, Namespace: argocd.DefaultNamespace}},
	} {
		if err := k8s.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(h.t, err)
		}
	}
	require.NoError(h.t, k8s.DeleteAllOf(ctx, &argov1.Application{}, client.InNamespace(argocd.DefaultNamespace)))
	dc, err := discovery.NewDiscoveryClientForConfig(controlPlane.Config)
	require.NoError(h.t, err)
	mgr, err := ctrl.NewManager(controlPlane.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(h.t, err)
	h.argo = &argoWorld{dc: dc, reader: argocd.NewEngine(k8s, nil, argoConfig), degraded: map[ports.ReleaseRef]bool{}}
	h.world = h.argo
	h.argo.sim = argocdsim.New(simReporting{Client: mgr.GetClient(), w: h.argo}, argocd.DefaultNamespace, h.clock)
	require.NoError(h.t, h.argo.sim.SetupWithManager(mgr))
	simCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(simCtx)
	}()
	h.t.Cleanup(func() {
		cancel()
		<-done
		_ = k8s.DeleteAllOf(context.Background(), &argov1.Application{}, client.InNamespace(argocd.DefaultNamespace))
	})
}

// engine is the Argo CD engine of one operator manager.
func (w *argoWorld) engine(mgr ctrl.Manager) ports.DeploymentEngine {
	cfg := argoConfig
	cfg.Reader = mgr.GetAPIReader()
	return argocd.NewEngine(appCounting{Client: mgr.GetClient(), w: w}, w.dc, cfg)
}

// argoConfig is the Argo CD engine's configuration in the suite.
var argoConfig = argocd.Config{Registry: "registry.example.com/aicr"}

// recordTimeline starts recording when each Application is written and reported healthy.
func (w *argoWorld) recordTimeline() *appTimeline {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timeline = newAppTimeline()
	return w.timeline
}

// wrote counts the operator's write of the Application app, unless it only set the cascade
// finalizer the Delete of a Remove step follows (a Remove is one write, as on the in-memory
// engine), records it for the step order and, unless it was the Delete, on the timeline, and
// runs the hook.
func (w *argoWorld) wrote(ctx context.Context, app *argov1.Application, deleted bool) {
	at := time.Now()
	if deleted || !slices.Contains(app.Finalizers, argov1.ResourcesFinalizerName) {
		w.writes.Add(1)
	}
	w.mu.Lock()
	hook, timeline, order := w.hook, w.timeline, w.order
	w.mu.Unlock()
	if order != nil {
		order.wrote(ctx, app, deleted)
	}
	if deleted {
		return
	}
	if timeline != nil {
		timeline.wrote(app.Name, at)
	}
	if hook != nil {
		hook(ctx)
	}
}

// reportedHealthy records on the timeline that the simulator reported app synced and healthy.
func (w *argoWorld) reportedHealthy(app *argov1.Application) {
	at := time.Now()
	w.mu.Lock()
	timeline := w.timeline
	w.mu.Unlock()
	if timeline != nil && app.Status.Sync.Status == argov1.SyncStatusCodeSynced && app.Status.Health.Status == "Healthy" {
		timeline.reportedHealthy(app.Name, at)
	}
}

// appCounting counts the operator's Application writes and runs the world's hook after each.
type appCounting struct {
	client.Client
	w *argoWorld
}

func (c appCounting) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if app, ok := obj.(*argov1.Application); ok {
		c.w.starting(ctx, app)
	}
	err := c.Client.Create(ctx, obj, opts...)
	if app, ok := obj.(*argov1.Application); ok && err == nil {
		c.w.wrote(ctx, app, false)
	}
	if _, ok := obj.(*argov1.Application); ok && apierrors.IsAlreadyExists(err) {
		c.w.createdAgain.Add(1)
	}
	return err
}

func (c appCounting) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if app, ok := obj.(*argov1.Application); ok {
		c.w.starting(ctx, app)
	}
	err := c.Client.Patch(ctx, obj, patch, opts...)
	if app, ok := obj.(*argov1.Application); ok && err == nil {
		c.w.wrote(ctx, app, false)
	}
	return err
}

func (c appCounting) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if app, ok := obj.(*argov1.Application); ok {
		c.w.starting(ctx, app)
	}
	err := c.Client.Delete(ctx, obj, opts...)
	if app, ok := obj.(*argov1.Application); ok && err == nil {
		c.w.wrote(ctx, app, true)
	}
	return err
}

// simReporting is the simulator's client: it tells the world each Application status the
// simulator wrote.
type simReporting struct {
	client.Client
	w *argoWorld
}

func (c simReporting) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	err := c.Client.Patch(ctx, obj, patch, opts...)
	if app, ok := obj.(*argov1.Application); ok && err == nil {
		c.w.reportedHealthy(app)
	}
	return err
}
