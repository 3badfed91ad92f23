// Package controllers registers the rollout and runtime controllers together, over one
// shared.Registration, with the engine watch both depend on: cmd/aicr-operator and the envtest
// suites wire them through the same function.
package controllers

import (
	"context"
	"errors"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/rollout"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/runtime"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// Setup is what RolloutControllers registers the controllers with.
type Setup struct {
	// Ports are the domain's driven ports (engine, jobs, registry, clock).
	Ports domain.Ports
	// Options are the installation's settings.
	Options shared.Options
	// Client writes rollouts and statuses; nil uses mgr.GetClient().
	Client client.Client
	// Assessments reads upgrade-check reports; nil uses runtime.NewAssessmentReader over the
	// operator namespace.
	Assessments runtime.AssessmentSource
	// EngineObject is the engine's object kind to watch (argocd.NewApplicationObject()); nil: none.
	EngineObject client.Object
	// EngineServed reports whether EngineObject's kind is served; nil uses discovery.
	EngineServed func(ctx context.Context) (bool, error)
	// EngineWatchInterval is how often shared.EngineWatch asks (shared.DefaultEngineWatchInterval when zero).
	EngineWatchInterval time.Duration
}

// RolloutControllers registers the rollout and runtime controllers with mgr and, with an
// EngineObject, the engine watch that adds the engine objects' watch to both once the kind is
// served (ENG-4).
func RolloutControllers(mgr ctrl.Manager, s Setup) error {
	if s.Ports.Sealer == nil {
		return errors.New("rollout controllers: Ports.Sealer is required: an outcome is trusted only under the operator's seal")
	}
	reg := shared.NewRegistration(mgr, s.Client, s.Ports, s.Options)
	ro, err := rollout.Register(mgr, reg)
	if err != nil {
		return err
	}
	rt, err := runtime.Register(mgr, reg, s.Assessments)
	if err != nil {
		return err
	}
	if s.EngineObject == nil {
		return nil
	}
	return shared.AddEngineWatch(mgr, s.EngineObject, s.EngineServed, s.EngineWatchInterval, ro, rt)
}
