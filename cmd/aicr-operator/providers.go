package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

const (
	// gracefulShutdown bounds how long controllers get to finish after SIGTERM.
	gracefulShutdown = 30 * time.Second
	// reconcileTimeout is the deadline of every reconcile: long enough for the slowest reconcile
	// that makes progress (the resolver mirroring a plan's charts, each request bounded by the
	// registry client's timeouts), short enough that a hung call cannot hold a worker for long.
	// A reconcile cut short resumes from what it wrote on its next attempt.
	reconcileTimeout = 5 * time.Minute
	// livenessGrace is how long past reconcileTimeout a reconcile may still be in flight before
	// the liveness probe fails: a reconcile that outlives its deadline by that much is stuck on
	// a call that ignores its context, and only a restart frees the worker.
	livenessGrace = time.Minute
)

// provideLiveness tracks the controllers' reconciles in flight for the liveness probe.
func provideLiveness(clk ports.Clock) *manager.Liveness {
	return manager.NewLiveness(clk, reconcileTimeout+livenessGrace)
}

func provideRestConfig() (*rest.Config, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	return cfg, nil
}

// provideManagerOptions maps the configuration onto the manager. Argo CD's Applications are
// cached in the engine namespace only, in a cache that needs their CRD only once they are
// read or watched: the operator starts before Argo CD is installed (ENG-4).
func provideManagerOptions(cfg app.Config, liveness *manager.Liveness) manager.Options {
	// The discovery namespace holds the snapshot agent's Jobs (RES-1).
	jobNamespaces := []string{cfg.JobsNamespace, cfg.DiscoveryNamespace}
	if cfg.ValidationEnabled { // the chart grants the validation namespace only then
		jobNamespaces = append(jobNamespaces, cfg.ValidationNamespace)
	}
	return manager.Options{
		OperatorNamespace:       cfg.OperatorNamespace,
		JobNamespaces:           jobNamespaces,
		LeaderElect:             cfg.LeaderElect,
		LeaseDuration:           cfg.LeaseDuration,
		RenewDeadline:           cfg.RenewDeadline,
		RetryPeriod:             cfg.RetryPeriod,
		MetricsBindAddress:      cfg.MetricsBindAddress,
		MetricsSecure:           cfg.MetricsSecure,
		MetricsCertDir:          cfg.MetricsCertDir,
		HealthProbeBindAddress:  cfg.HealthProbeBindAddress,
		GracefulShutdownTimeout: gracefulShutdown,
		AddToScheme:             []func(*runtime.Scheme) error{argocd.AddToScheme},
		CacheByObject:           argocd.CacheByObject(cfg.EngineNamespace),
		Uncached:                argocd.Uncached(),
		ReconcileTimeout:        reconcileTimeout,
		Liveness:                liveness,
	}
}

func provideManager(rc *rest.Config, o manager.Options) (ctrl.Manager, error) {
	return manager.New(rc, o)
}

func provideClient(mgr ctrl.Manager) client.Client { return mgr.GetClient() }

func provideDiscovery(rc *rest.Config) (discovery.DiscoveryInterface, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("build discovery client: %w", err)
	}
	return dc, nil
}

// apiReader reads from the API server itself, past the manager's caches.
type apiReader struct{ client.Reader }

func provideAPIReader(mgr ctrl.Manager) apiReader { return apiReader{mgr.GetAPIReader()} }

// provideArgoCDConfig configures the engine; its Reader lists every Application of the engine
// namespace, which the manager's cache (limited to the operator's label) does not hold.
func provideArgoCDConfig(cfg app.Config, r apiReader) argocd.Config {
	return argocd.Config{
		Reader:    r.Reader,
		Namespace: cfg.EngineNamespace,
		Project:   cfg.EngineProject,
		Registry:  strings.TrimPrefix(cfg.RegistryRepository, "oci://"),
	}
}

// runner is the assembled operator.
type runner struct {
	Manager   ctrl.Manager
	Engine    ports.DeploymentEngine
	Resolver  *resolver.Reconciler
	Rollouts  rolloutControllers
	Retention *retention.Reconciler
}

// run registers the controllers, the build info and the state metrics read from the cache at
// scrape time (OPS-2), and runs the manager until ctx ends. An operator started before Argo
// CD's CRDs exist keeps running: the runtime reports EngineAvailable=False with EngineMissing,
// and the rollout controllers watch Applications once the kind is served (ENG-4).
func (r *runner) run(ctx context.Context) error {
	log := ctrl.Log.WithName("aicr-operator")
	if err := r.Engine.Check(ctx); err != nil {
		log.Info("deployment engine not usable yet; the runtime reports EngineAvailable=False until it is", "reason", err.Error())
	}
	if err := r.Resolver.SetupWithManager(r.Manager); err != nil {
		return fmt.Errorf("set up the resolver: %w", err)
	}
	if err := r.Rollouts.register(r.Manager); err != nil {
		return fmt.Errorf("set up the rollout controllers: %w", err)
	}
	if err := r.Retention.SetupWithManager(r.Manager); err != nil {
		return fmt.Errorf("set up retention: %w", err)
	}
	m := shared.NewMetrics()
	m.RecordBuildInfo(version)
	m.State.Observe(r.Manager.GetClient(), r.Manager.Elected())
	if err := r.Manager.Start(ctx); err != nil {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}
