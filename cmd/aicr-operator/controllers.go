package main

import (
	"context"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nvidia/aicr-operator/adapters/argocd"
	"github.com/nvidia/aicr-operator/adapters/clock"
	"github.com/nvidia/aicr-operator/adapters/jobs"
	"github.com/nvidia/aicr-operator/adapters/kube/controller"
	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/adapters/oci/chartref"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

func provideClock() ports.Clock { return clock.New() }

// provideJobs runs AICR Jobs in the jobs namespace with the pinned AICR image (RES-1, RES-8).
func provideJobs(cfg app.Config, mgr ctrl.Manager) (*jobs.Runner, error) {
	return jobs.New(jobs.Config{Namespace: cfg.JobsNamespace, OperatorNamespace: cfg.OperatorNamespace, Image: cfg.AICRImage},
		mgr.GetClient(), mgr.GetAPIReader())
}

// provideResolver builds the resolver over the Jobs and the registry, which mirrors and pins
// every chart of a plan by digest (PLAN-3).
func provideResolver(cfg app.Config, mgr ctrl.Manager, runner *jobs.Runner, reg *oci.Registry, clk ports.Clock) (*controller.Resolver, error) {
	return controller.NewResolver(mgr.GetClient(), mgr.GetAPIReader(), runner, reg, clk,
		mgr.GetEventRecorderFor(controller.ResolverFieldManager), controller.ResolverConfig{
			OperatorNamespace: cfg.OperatorNamespace,
			JobNamespace:      cfg.JobsNamespace,
			Image:             cfg.AICRImage,
			AICRVersion:       cfg.AICRVersion,
			AllowedNamespaces: cfg.ComponentNamespaces,
			BundleRepository:  chartref.Base(cfg.RegistryRepository) + "/" + oci.BundlesRepository,
		})
}

// provideRolloutSetup assembles the rollout and runtime controllers over the domain's ports:
// the selected engine, the AICR Jobs (deployment validation), the registry (evidence) and the
// clock. The engine watch starts once Argo CD's Application kind is served (ENG-4).
func provideRolloutSetup(cfg app.Config, engine ports.DeploymentEngine, runner *jobs.Runner, reg *oci.Registry,
	clk ports.Clock, dc discovery.DiscoveryInterface) controller.Setup {
	return controller.Setup{
		Ports: domain.Ports{Engine: engine, Jobs: runner, Registry: reg, Clock: clk},
		Options: controller.Options{
			OperatorNamespace: cfg.OperatorNamespace,
			ValidationEnabled: cfg.ValidationEnabled,
			ValidationImage:   cfg.ValidatorImage,
		},
		EngineObject: argocd.NewApplicationObject(),
		EngineServed: func(context.Context) (bool, error) { return argocd.ApplicationServed(dc) },
	}
}
