package rollout

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// Register registers the rollout controller with mgr and returns it with the handler its
// engine-object events go through, for shared.AddEngineWatch. Rollouts are read live through
// the uncached mgr.GetAPIReader() (RO-1).
func Register(mgr ctrl.Manager, reg shared.Registration) (shared.WatchTarget, error) {
	r := NewReconciler(reg.Client, mgr.GetAPIReader(), reg.Ports, reg.Plans, reg.Recorder, reg.Options)
	c, err := r.SetupWithManager(mgr)
	if err != nil {
		return shared.WatchTarget{}, fmt.Errorf("rollout controller: %w", err)
	}
	return shared.WatchTarget{Controller: c, Handler: r.EngineHandler()}, nil
}
