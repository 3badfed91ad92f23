package runtime

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// Register registers the runtime controller with mgr and returns it with the handler its
// engine-object events go through, for shared.AddEngineWatch. Rollouts are created through
// the uncached mgr.GetAPIReader() list (RO-1); assessments nil reads upgrade-check reports
// from the operator namespace (NewAssessmentReader).
func Register(mgr ctrl.Manager, reg shared.Registration, assessments AssessmentSource) (shared.WatchTarget, error) {
	if assessments == nil {
		assessments = NewAssessmentReader(mgr.GetClient(), reg.Options.OperatorNamespace, reg.Ports.Sealer)
	}
	r := NewReconciler(reg.Client, reg.Ports, reg.Plans, NewRolloutCreator(mgr.GetAPIReader(), reg.Client), assessments,
		reg.Recorder, reg.Options)
	c, err := r.SetupWithManager(mgr)
	if err != nil {
		return shared.WatchTarget{}, fmt.Errorf("runtime controller: %w", err)
	}
	return shared.WatchTarget{Controller: c, Handler: r.EngineHandler()}, nil
}
