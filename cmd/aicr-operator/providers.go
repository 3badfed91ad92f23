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
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmanager "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/nvidia/aicr-operator/adapters/argocd"
	"github.com/nvidia/aicr-operator/adapters/kube/controller"
	"github.com/nvidia/aicr-operator/adapters/kube/manager"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/ports"
)

// gracefulShutdown bounds how long controllers get to finish after SIGTERM.
const gracefulShutdown = 30 * time.Second

func provideRestConfig() (*rest.Config, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	return cfg, nil
}

func provideManagerOptions(cfg app.Config, served engineServedAtStart) manager.Options {
	jobNamespaces := []string{cfg.JobsNamespace, cfg.DiscoveryNamespace}
	if cfg.ValidationEnabled { // the chart grants the validation namespace only then
		jobNamespaces = append(jobNamespaces, cfg.ValidationNamespace)
	}
	var engineCache map[client.Object]cache.ByObject
	if served {
		engineCache = argocd.CacheByObject(cfg.EngineNamespace)
	}
	return manager.Options{
		OperatorNamespace:       cfg.OperatorNamespace,
		JobNamespaces:           jobNamespaces,
		LeaderElect:             cfg.LeaderElect,
		LeaseDuration:           cfg.LeaseDuration,
		RenewDeadline:           cfg.RenewDeadline,
		RetryPeriod:             cfg.RetryPeriod,
		MetricsBindAddress:      cfg.MetricsBindAddress,
		HealthProbeBindAddress:  cfg.HealthProbeBindAddress,
		GracefulShutdownTimeout: gracefulShutdown,
		AddToScheme:             []func(*runtime.Scheme) error{argocd.AddToScheme},
		CacheByObject:           engineCache,
		Uncached:                argocd.Uncached(),
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

func provideArgoCDConfig(cfg app.Config) argocd.Config {
	return argocd.Config{
		Namespace: cfg.EngineNamespace,
		Project:   cfg.EngineProject,
		Registry:  strings.TrimPrefix(cfg.RegistryRepository, "oci://"),
	}
}

// runner is the assembled operator.
type runner struct {
	Manager   ctrl.Manager
	Engine    ports.DeploymentEngine
	Resolver  *controller.Resolver
	Rollouts  controller.Setup
	Served    engineServedAtStart
	Discovery discovery.DiscoveryInterface
}

// run registers the controllers and runs the manager until ctx ends.
func (r *runner) run(ctx context.Context) error {
	log := ctrl.Log.WithName("aicr-operator")
	if err := r.Engine.Check(ctx); err != nil {
		log.Info("deployment engine not usable yet; the runtime reports EngineAvailable=False until it is", "reason", err.Error())
	}
	if err := r.Resolver.SetupWithManager(r.Manager); err != nil {
		return fmt.Errorf("set up the resolver: %w", err)
	}
	if !r.Served {
		// Without the kind there is no Application cache to watch through; see errEngineAppeared.
		r.Rollouts.EngineObject = nil
		if err := r.Manager.Add(ctrlmanager.RunnableFunc(waitForEngine(r.Discovery))); err != nil {
			return fmt.Errorf("watch for Argo CD: %w", err)
		}
	}
	if err := controller.SetupRolloutControllers(r.Manager, r.Rollouts); err != nil {
		return fmt.Errorf("set up the rollout controllers: %w", err)
	}
	if err := r.Manager.Start(ctx); err != nil {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}
