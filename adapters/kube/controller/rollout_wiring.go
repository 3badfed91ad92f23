package controller

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/domain"
)

// Setup is what the composition root hands SetupRolloutControllers.
type Setup struct {
	// Ports are the domain's driven ports (engine, jobs, registry, clock).
	Ports domain.Ports
	// Options are the installation's settings.
	Options Options
	// Client writes rollouts and statuses; nil uses mgr.GetClient().
	Client client.Client
	// Assessments reads upgrade-check reports; nil uses NewAssessmentReader over the operator namespace.
	Assessments AssessmentSource
	// EngineObject is the engine's object kind to watch (argocd.NewApplicationObject()); nil: none.
	EngineObject client.Object
	// EngineServed reports whether EngineObject's kind is served; nil uses discovery.
	EngineServed func(ctx context.Context) (bool, error)
	// EngineWatchInterval is how often EngineWatch asks (DefaultEngineWatchInterval when zero).
	EngineWatchInterval time.Duration
}

// SetupRolloutControllers registers the rollout and runtime controllers with mgr and, with an
// EngineObject, the EngineWatch that adds the engine objects' watch to both once the kind is
// served (ENG-4). Rollouts are created through the uncached mgr.GetAPIReader() list (RO-1).
func SetupRolloutControllers(mgr ctrl.Manager, s Setup) error {
	c := s.Client
	if c == nil {
		c = mgr.GetClient()
	}
	if s.Assessments == nil {
		s.Assessments = NewAssessmentReader(mgr.GetClient(), s.Options.OperatorNamespace)
	}
	plans := NewPlanReader(mgr.GetClient(), s.Options.OperatorNamespace)
	recorder := mgr.GetEventRecorderFor(FieldManager)
	ro := NewRolloutReconciler(c, mgr.GetAPIReader(), s.Ports, plans, recorder, s.Options)
	roCtrl, err := ro.SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("rollout controller: %w", err)
	}
	rt := NewRuntimeReconciler(c, s.Ports, plans, NewRolloutCreator(mgr.GetAPIReader(), c), s.Assessments, recorder, s.Options)
	rtCtrl, err := rt.SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("runtime controller: %w", err)
	}
	if s.EngineObject == nil {
		return nil
	}
	ew, err := NewEngineWatch(mgr, s.EngineObject, s.EngineServed, s.EngineWatchInterval,
		WatchTarget{Controller: roCtrl, Handler: ro.EngineHandler()}, WatchTarget{Controller: rtCtrl, Handler: rt.EngineHandler()})
	if err != nil {
		return err
	}
	if err := mgr.Add(ew); err != nil {
		return fmt.Errorf("engine watch: %w", err)
	}
	return nil
}
