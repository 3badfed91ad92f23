package rollout

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/adapters/kube/controllers/runtime"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/domain"
)

// Setup is what the composition root hands SetupControllers.
type Setup struct {
	// Ports are the domain's driven ports (engine, jobs, registry, clock).
	Ports domain.Ports
	// Options are the installation's settings.
	Options shared.Options
	// Client writes rollouts and statuses; nil uses mgr.GetClient().
	Client client.Client
	// Assessments reads upgrade-check reports; nil uses runtime.NewAssessmentReader over the operator namespace.
	Assessments runtime.AssessmentSource
	// EngineObject is the engine's object kind to watch (argocd.NewApplicationObject()); nil: none.
	EngineObject client.Object
	// EngineServed reports whether EngineObject's kind is served; nil uses discovery.
	EngineServed func(ctx context.Context) (bool, error)
	// EngineWatchInterval is how often shared.EngineWatch asks (shared.DefaultEngineWatchInterval when zero).
	EngineWatchInterval time.Duration
}

// SetupControllers registers the rollout and runtime controllers with mgr and, with an
// EngineObject, the shared.EngineWatch that adds the engine objects' watch to both once the kind is
// served (ENG-4). Rollouts are created through the uncached mgr.GetAPIReader() list (RO-1).
func SetupControllers(mgr ctrl.Manager, s Setup) error {
	c := s.Client
	if c == nil {
		c = mgr.GetClient()
	}
	if s.Assessments == nil {
		s.Assessments = runtime.NewAssessmentReader(mgr.GetClient(), s.Options.OperatorNamespace)
	}
	plans := shared.NewPlanReader(mgr.GetClient(), s.Options.OperatorNamespace)
	recorder := mgr.GetEventRecorderFor(shared.FieldManager)
	ro := NewReconciler(c, mgr.GetAPIReader(), s.Ports, plans, recorder, s.Options)
	roCtrl, err := ro.SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("rollout controller: %w", err)
	}
	rt := runtime.NewReconciler(c, s.Ports, plans, runtime.NewRolloutCreator(mgr.GetAPIReader(), c), s.Assessments, recorder, s.Options)
	rtCtrl, err := rt.SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("runtime controller: %w", err)
	}
	if s.EngineObject == nil {
		return nil
	}
	ew, err := shared.NewEngineWatch(mgr, s.EngineObject, s.EngineServed, s.EngineWatchInterval,
		shared.WatchTarget{Controller: roCtrl, Handler: ro.EngineHandler()}, shared.WatchTarget{Controller: rtCtrl, Handler: rt.EngineHandler()})
	if err != nil {
		return err
	}
	if err := mgr.Add(ew); err != nil {
		return fmt.Errorf("engine watch: %w", err)
	}
	return nil
}
