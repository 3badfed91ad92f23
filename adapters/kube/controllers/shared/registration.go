package shared

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// Registration is what the rollout and runtime controllers' Register functions take besides
// the manager: the same client, ports, plan reader, recorder and options for both.
type Registration struct {
	// Client writes rollouts and statuses.
	Client client.Client
	// Ports are the domain's driven ports (engine, jobs, registry, clock, workloads).
	Ports domain.Ports
	// Plans reads the plans of the operator namespace.
	Plans *planstore.Reader
	// Recorder records the controllers' Events.
	Recorder record.EventRecorder
	// Options are the installation's settings.
	Options Options
}

// NewRegistration returns the Registration over mgr: c writes (mgr.GetClient() when nil), plans
// are read through the manager's cache in the operator namespace under the operator's seal
// (p.Sealer), and Events are recorded as FieldManager.
func NewRegistration(mgr ctrl.Manager, c client.Client, p domain.Ports, opts Options) Registration {
	if c == nil {
		c = mgr.GetClient()
	}
	return Registration{Client: c, Ports: p, Plans: planstore.NewReader(mgr.GetClient(), opts.OperatorNamespace, p.Sealer),
		Recorder: mgr.GetEventRecorderFor(FieldManager), Options: opts}
}

// AddEngineWatch adds to mgr the EngineWatch that adds object's watch to targets once its kind
// is served (ENG-4); served and interval as NewEngineWatch takes them.
func AddEngineWatch(mgr ctrl.Manager, object client.Object, served func(ctx context.Context) (bool, error),
	interval time.Duration, targets ...WatchTarget) error {
	ew, err := NewEngineWatch(mgr, object, served, interval, targets...)
	if err != nil {
		return err
	}
	if err := mgr.Add(ew); err != nil {
		return fmt.Errorf("engine watch: %w", err)
	}
	return nil
}
