package runtime

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// observation is what the runtime reconciler derives its decisions and conditions from; it is
// rebuilt from live objects on every reconcile.
type observation struct {
	uid, active, target string
	// rollouts are this runtime's rollouts, oldest first.
	rollouts []aicrv1alpha1.RuntimeRollout
	// inProgress is the rollout without an outcome label, if any.
	inProgress *aicrv1alpha1.RuntimeRollout
	// latest is the newest rollout toward the target from the active plan.
	latest      *aicrv1alpha1.RuntimeRollout
	engineStall *domain.Stall
	planStall   *domain.Stall
	// untrusted reports that an admission policy the operator relies on is not in force
	// (planStall is AdmissionPolicyMissing): nothing is written, not even the engine suspension.
	untrusted bool
	// suspension is the engine-suspension decision (nil while the engine cannot be used or
	// nothing can be trusted); suspensionStall is the engine's refusal of one of its writes.
	suspension      *domain.Suspension
	suspensionStall *domain.Stall
	targetPlan      *domain.Plan
	activePlan      *domain.Plan
	// targetFlags and activeFlags are the render flags the plans record (nil: none recorded).
	targetFlags, activeFlags []string
	live                     []ports.ReleaseStatus
	// restoredUnknown are the releases the rollout that made the active plan recorded as
	// Unknown, or will record once settled (it was restored without status, RO-13).
	restoredUnknown map[string]bool
	// reinstall are the active plan's releases lost with the restore (RO-13).
	reinstall []ports.ReleaseRef
	// planned and targetPlanned are the spec digests the engine renders for each release of the
	// active and the target plan.
	planned, targetPlanned map[ports.ReleaseRef]string
	// driftStall is EngineObjectDrifted while no rollout rewrites a drifted release.
	driftStall *domain.Stall
	// unplanned are the engine objects in the operator's project no plan names (nil: unknown).
	unplanned []string
}

// observe lists the runtime's rollouts (cached), derives the active plan from the newest
// rollout labelled Succeeded (RO-6, RO-13: it survives the loss of status) once its outcome is
// sealed or confirmed (confirmOutcome), checks the engine and reads the target and active plans.
func (r *Reconciler) observe(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) (*observation, error) {
	obs := &observation{uid: string(cr.UID), target: shared.TargetPlanDigest(cr)}
	var list aicrv1alpha1.RuntimeRolloutList
	if err := r.client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list rollouts: %w", err)
	}
	for _, ro := range list.Items {
		if ro.Spec.RuntimeUID == obs.uid {
			obs.rollouts = append(obs.rollouts, ro)
		}
	}
	sort.SliceStable(obs.rollouts, func(i, j int) bool { return shared.OlderRollout(&obs.rollouts[i], &obs.rollouts[j]) })
	var succeeded *aicrv1alpha1.RuntimeRollout
	for i := range obs.rollouts {
		ro := &obs.rollouts[i]
		switch ro.Labels[aicrv1alpha1.LabelOutcome] {
		case "":
			obs.inProgress = ro
		case string(aicrv1alpha1.PhaseSucceeded):
			succeeded = ro
		}
	}
	if succeeded != nil {
		obs.active, obs.restoredUnknown = succeeded.Spec.ToPlanDigest, unknownReleases(succeeded)
	}
	for i := range obs.rollouts {
		ro := &obs.rollouts[i]
		if ro.Spec.ToPlanDigest == obs.target && ro.Spec.FromPlanDigest == obs.active {
			obs.latest = ro
		}
	}
	if err := r.observeEngine(ctx, obs); err != nil {
		return nil, err
	}
	stall, err := r.admission.Check(ctx)
	if err != nil || stall != nil {
		obs.planStall = stall // nothing read back is trusted: no plan is read, rebuilt or rolled out
		obs.untrusted = stall != nil
		return obs, err
	}
	if succeeded != nil {
		if stall, err := r.confirmOutcome(ctx, obs, succeeded); err != nil || stall != nil {
			// The active plan is not known: no plan is read or rolled out, and the status shows
			// the newest success the operator sealed, not the unverified one.
			obs.planStall, obs.active, obs.restoredUnknown = stall, r.newestSealedSuccess(obs.rollouts), nil
			return obs, err
		}
	}
	if err := r.observePlans(ctx, cr, obs); err != nil {
		return nil, err
	}
	if obs.engineStall == nil && obs.planStall == nil {
		missing := domain.MissingAfterRestore(obs.activePlan, obs.restoredUnknown, obs.live)
		switch {
		case obs.target == obs.active:
			obs.reinstall = missing
		case obs.inProgress == nil:
			obs.planStall = domain.MovedReleasesMissing(obs.active, missing)
		}
	}
	if err := r.observeDrift(ctx, obs); err != nil {
		return nil, err
	}
	return obs, nil
}

// unknownReleases are the releases a rollout recorded as Unknown (restored without status). A
// rollout restored without status that the rollout controller has not settled yet counts every
// release of its steps, as settling it will record: the runtime may judge a new target first.
func unknownReleases(ro *aicrv1alpha1.RuntimeRollout) map[string]bool {
	if ro.Status.Phase == "" {
		out := make(map[string]bool, len(ro.Spec.Steps))
		for _, s := range ro.Spec.Steps {
			out[s.Release] = true
		}
		return out
	}
	var out map[string]bool
	for _, rs := range ro.Status.Releases {
		if rs.State == aicrv1alpha1.ReleaseUnknown {
			if out == nil {
				out = map[string]bool{}
			}
			out[rs.Release] = true
		}
	}
	return out
}

func (r *Reconciler) observeEngine(ctx context.Context, obs *observation) error {
	err := r.ports.Engine.Check(ctx)
	if err == nil {
		obs.live, err = r.ports.Engine.List(ctx)
	}
	if stall := domain.PortStall("deployment engine", err); stall != nil {
		obs.engineStall = stall
		return nil
	}
	if err != nil {
		return fmt.Errorf("deployment engine: %w", err)
	}
	return nil
}

func (r *Reconciler) observePlans(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, obs *observation) error {
	if obs.target != "" {
		doc, stall, err := r.readPlan(ctx, cr, obs, obs.target)
		if err != nil || stall != nil {
			obs.planStall = stall
			return err
		}
		obs.targetPlan, obs.targetFlags = &doc.Plan, doc.RenderFlags
	}
	if obs.active != "" {
		doc, stall, err := r.readPlan(ctx, cr, obs, obs.active)
		if err != nil || stall != nil {
			obs.planStall = stall
			return err
		}
		obs.activePlan, obs.activeFlags = &doc.Plan, doc.RenderFlags
	}
	return nil
}

// rolloutStall is the stall a rollout reports: its Stalled condition, else the stall of a
// failed, expired or revoked outcome (a restored rollout has no conditions).
func rolloutStall(ro *aicrv1alpha1.RuntimeRollout) *domain.Stall {
	if c := meta.FindStatusCondition(ro.Status.Conditions, shared.CondStalled); c != nil && c.Status == "True" {
		return domain.StallFromCondition(c.Reason, c.Message)
	}
	return domain.OutcomeStall(domain.Phase(ro.Labels[aicrv1alpha1.LabelOutcome]), ro.Name)
}
