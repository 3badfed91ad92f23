package main

import (
	"context"
	"time"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/NVIDIA/aicr/adapters/argocd"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// rolloutControllers are the rollout and runtime controllers over the domain's ports, with the
// engine watch that adds Argo CD Applications' watch to both once the kind is served (ENG-4).
type rolloutControllers struct {
	ports        domain.Ports
	options      shared.Options
	engineServed func(context.Context) (bool, error)
	// engineWatchInterval is how often the engine watch asks (shared.DefaultEngineWatchInterval when zero).
	engineWatchInterval time.Duration
}

// provideRolloutControllers assembles the rollout and runtime controllers over the domain's
// ports: the selected engine, the validation Jobs (counted as they finish), the registry
// (evidence), the clock, the protected workloads and the sealer of outcomes; their admission
// guard also checks the AppProject against --engine-project-digest.
func provideRolloutControllers(cfg app.Config, engine ports.DeploymentEngine, validation validationJobs, reg *oci.Registry,
	clk ports.Clock, work ports.WorkloadFinder, seals ports.Sealer, dc discovery.DiscoveryInterface, admission admissionDigests,
	liveness *manager.Liveness, argoCfg argocd.Config) rolloutControllers {
	options := rolloutOptions(cfg, admission, liveness)
	// The AppProject is compared with the chart's digest of it on every guard check, read
	// uncached by name as the operator's grant allows.
	options.EngineProject = argocd.ProjectGuard(argoCfg.Reader, argoCfg.Namespace, argoCfg.Project, cfg.EngineProjectDigest)
	return rolloutControllers{
		ports: domain.Ports{Engine: engine, Jobs: countJobs(validation, shared.NewMetrics().JobsFinished, shared.JobRunnerValidation),
			Registry: reg, Clock: clk, Workloads: work, Sealer: seals},
		options:      options,
		engineServed: func(context.Context) (bool, error) { return argocd.ApplicationServed(dc) },
	}
}

// rolloutOptions are the rollout and runtime controllers' settings: validation and its bound, the
// step timeouts, the rollout window and the chart's admission policies with their digests.
func rolloutOptions(cfg app.Config, admission admissionDigests, liveness *manager.Liveness) shared.Options {
	return shared.Options{
		OperatorNamespace:   cfg.OperatorNamespace,
		ValidationEnabled:   cfg.ValidationEnabled,
		ValidationImage:     cfg.AICRImage,
		ValidationNamespace: cfg.ValidationNamespace,
		ActionTimeout:       cfg.StepTimeout,
		ComponentTimeouts:   cfg.ComponentStepTimeouts,
		ValidationTimeout:   cfg.ValidationTimeout,
		RolloutWindow:       cfg.RolloutWindow,
		AdmissionPolicies:   shared.ChartAdmissionPolicies,
		AdmissionDigests:    admission,
		CRDDigests:          aicrv1alpha1.CRDSchemaDigests,
		Track:               liveness.Track,
	}
}

// register registers both controllers and the engine watch with mgr.
func (c rolloutControllers) register(mgr ctrl.Manager) error {
	return controllers.RolloutControllers(mgr, controllers.Setup{Ports: c.ports, Options: c.options,
		EngineObject: argocd.NewApplicationObject(), EngineServed: c.engineServed, EngineWatchInterval: c.engineWatchInterval})
}
