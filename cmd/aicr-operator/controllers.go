package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nvidia/aicr-operator/adapters/clock"
	"github.com/nvidia/aicr-operator/adapters/jobs"
	"github.com/nvidia/aicr-operator/adapters/kube/controller"
	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/adapters/oci/chartref"
	"github.com/nvidia/aicr-operator/app"
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
			ChartMirror:       chartref.Base(cfg.RegistryRepository) + "/" + chartref.ChartsDir,
		})
}
