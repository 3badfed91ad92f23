package rollout

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// environment observes what the domain needs besides the rollout: the runtime (absent:
// Orphaned; being deleted: Orphaned after the step in flight, CR-12), its current target, its
// switches (paused, suspendEngine), the rollout's plans, the target plan's validation recipe and
// bundle digest while validation is Required or running (RO-10), and the installation's
// settings. A plan or recipe that cannot be read is returned as a stall.
func (r *Reconciler) environment(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout) (
	domain.Environment, *domain.Stall, error) {
	env := domain.Environment{
		ValidationEnabled: r.opts.ValidationEnabled, ValidationImage: r.opts.ValidationImage,
		ValidationNamespace: r.opts.ValidationNamespace, ActionTimeout: r.opts.ActionTimeout,
		ComponentTimeouts: r.opts.ComponentTimeouts, ValidationTimeout: r.opts.ValidationTimeout,
	}
	cr := &aicrv1alpha1.ClusterRuntime{}
	if err := r.client.Get(ctx, types.NamespacedName{Name: aicrv1alpha1.ClusterRuntimeName}, cr); err != nil {
		if apierrors.IsNotFound(err) {
			return env, nil, nil
		}
		return env, nil, fmt.Errorf("get ClusterRuntime: %w", err)
	}
	env.RuntimeUID = string(cr.UID)
	env.ValidationPlacement = shared.JobPlacement(cr.Spec.Placement.System)
	env.TargetPlanDigest = shared.TargetPlanDigest(cr)
	env.ValidationRequired = cr.Spec.Validation.Deployment != aicrv1alpha1.ValidationDisabled
	env.SuspendEngine, env.Paused, env.Deleting = cr.Spec.SuspendEngine, cr.Spec.Paused, !cr.DeletionTimestamp.IsZero()
	if cr.Spec.Adoption != nil {
		env.AdoptionRuntimeUID = cr.Spec.Adoption.RuntimeUID
	}
	env.AcceleratedNodes = shared.AcceleratedNodes(cr)
	policy, err := shared.ChangePolicy(cr.Spec.ChangePolicy)
	if err != nil {
		return env, domain.ChangePolicyUnreadable(err.Error()), nil
	}
	env.ChangePolicy = policy
	if env.RuntimeUID != ro.Spec.RuntimeUID {
		return env, nil, nil
	}
	target, stall, err := r.plans.Document(ctx, ro.Spec.ToPlanDigest, ro.Spec.RuntimeUID)
	if err != nil || stall != nil {
		return env, stall, err
	}
	env.Target = &target.Plan
	if env.ValidationRequired || ro.Status.Phase == aicrv1alpha1.PhaseValidating {
		if stall, err = r.plans.ReadValidation(ctx, target, &env); err != nil || stall != nil {
			return env, stall, err
		}
	}
	if ro.Spec.FromPlanDigest != "" {
		env.Active, stall, err = r.plans.Read(ctx, ro.Spec.FromPlanDigest, ro.Spec.RuntimeUID)
	}
	return env, stall, err
}

// advance maps the rollout onto the domain and takes its decisions (app.AdvanceRollout); a
// plan the environment could not read, or steps the domain cannot rebuild, is the outcome's
// stall without a decision. While the runtime is paused the domain starts no step (env.Paused).
func (r *Reconciler) advance(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout, env domain.Environment,
	planStall *domain.Stall) (domain.Outcome, []app.Decision, error) {
	st := toDomainStatus(ro)
	if planStall != nil {
		return domain.Outcome{Status: st, Stall: planStall}, nil, nil
	}
	rollout, err := domain.RolloutFromStatus(toDomainSpec(ro, env.Target, env.Active), st)
	if err != nil {
		stall := domain.StepsUnknown(err.Error())
		return domain.Outcome{Status: st, Stall: stall}, nil, nil
	}
	return app.AdvanceRollout(ctx, rollout, r.ports, env)
}
