package runtime

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// runtimeConditionTypes are the condition types the rollout controllers own on the
// ClusterRuntime (CR-7); Resolved belongs to the resolver.
var runtimeConditionTypes = []string{
	aicrv1alpha1.ConditionReady, aicrv1alpha1.ConditionAvailable, aicrv1alpha1.ConditionReconciling,
	aicrv1alpha1.ConditionStalled, aicrv1alpha1.ConditionEngineAvailable, aicrv1alpha1.ConditionEngineObjectsPlanned,
}

// runtimeStatus is the part of the ClusterRuntime status the field manager aicr-rollout owns.
type runtimeStatus struct {
	generation              int64
	conditions              []metav1.Condition
	active, target, rollout string
	retryRequestedAt        string
}

// desiredStatus derives the owned status from the observation (pure): Ready from the
// domain (CR-8), Available (CR-9), EngineAvailable, and the kstatus pair: Stalled for a failed
// Resolved (CR-10), an engine or plan problem, a refused engine suspension or a stalled or
// failed rollout toward the target; Reconciling while the target is not rolled out or the
// engine objects do not show spec.suspendEngine yet; neither once Ready, paused or suspended.
func desiredStatus(cr *aicrv1alpha1.ClusterRuntime, obs *observation, retry string, now time.Time) runtimeStatus {
	gen := cr.Generation
	var conds []metav1.Condition
	for _, t := range runtimeConditionTypes {
		if c := meta.FindStatusCondition(cr.Status.Conditions, t); c != nil {
			conds = append(conds, *c)
		}
	}
	view := rolloutView(obs)
	var suspension *domain.Suspension
	if cr.Spec.SuspendEngine {
		suspension = obs.suspension
	}
	ready := domain.ReadyCondition(domain.ReadyInput{
		Deleting: cr.DeletionTimestamp != nil, Paused: cr.Spec.Paused, Suspension: suspension,
		SuspensionStall: obs.suspensionStall, EngineStall: obs.engineStall, PlanStall: obs.planStall, ActivePlanDigest: obs.active,
		TargetPlanDigest: obs.target, Rollout: view, ReleasesReady: releasesReady(obs),
		ValidationDisabled: cr.Spec.Validation.Deployment == aicrv1alpha1.ValidationDisabled, DriftStall: obs.driftStall,
	})
	shared.SetCondition(&conds, toCondition(aicrv1alpha1.ConditionReady, ready), gen, now)
	prevAvailable := domain.ConditionUnknown
	if c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionAvailable); c != nil {
		prevAvailable = domain.ConditionStatus(c.Status)
	}
	shared.SetCondition(&conds, toCondition(aicrv1alpha1.ConditionAvailable, available(obs, prevAvailable)), gen, now)
	engine := domain.Condition{Status: domain.ConditionTrue, Reason: "EngineReady", Message: "the deployment engine is installed and usable"}
	if obs.engineStall != nil {
		engine = domain.Condition{Status: domain.ConditionFalse, Reason: string(obs.engineStall.Reason()), Message: obs.engineStall.Message()}
	}
	shared.SetCondition(&conds, toCondition(aicrv1alpha1.ConditionEngineAvailable, engine), gen, now)
	if obs.unplanned != nil {
		shared.SetCondition(&conds, toCondition(aicrv1alpha1.ConditionEngineObjectsPlanned,
			domain.UnplannedCondition(obs.unplanned)), gen, now)
	}
	switch stall := runtimeStall(cr, obs, view); {
	case stall != nil:
		meta.RemoveStatusCondition(&conds, shared.CondReconciling)
		shared.SetCondition(&conds, metav1.Condition{Type: shared.CondStalled, Status: metav1.ConditionTrue,
			Reason: string(stall.Reason()), Message: stall.Message()}, gen, now)
	case obs.suspension != nil && !obs.suspension.Holds() && !cr.Spec.Paused:
		shared.MarkReconciling(&conds, obs.suspension.SuspensionReason(), obs.suspension.Message(), gen, now)
	case ready.Status == domain.ConditionTrue || cr.Spec.Paused || ready.Reason == domain.ReasonEngineSuspended:
		shared.ClearProgress(&conds)
	default:
		shared.MarkReconciling(&conds, ready.Reason, ready.Message, gen, now)
	}
	out := runtimeStatus{generation: gen, conditions: conds, active: obs.active, target: obs.target,
		rollout: cr.Status.Rollout, retryRequestedAt: cr.Status.HandledRequests.RetryRequestedAt}
	if retry != "" {
		out.retryRequestedAt = retry
	}
	if view.Exists {
		out.rollout = view.Name
	}
	return out
}

// runtimeStall picks the first stall in order: a failed Resolved (CR-10), the runtime's own
// stall (ownStall), then the rollout toward the target unless it only waits (for a human, a
// change window or protected workloads).
func runtimeStall(cr *aicrv1alpha1.ClusterRuntime, obs *observation, view domain.RolloutView) *domain.Stall {
	if c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionResolved); c != nil {
		if s := domain.StalledFromResolved(domain.Condition{Status: domain.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message}); s != nil {
			return s
		}
	}
	if s := ownStall(obs); s != nil {
		return s
	}
	switch {
	case obs.target == obs.active || view.Stall == nil:
		return nil
	case view.Stall.Reason().Waits():
		return nil
	}
	return view.Stall
}

// ownStall is the stall the runtime controller decides itself, first in order: the engine, the
// plans (and the admission policies), a refused engine suspension, then an engine object of the
// active plan that drifted from it while no rollout rewrites it (EngineObjectDrifted). A failed Resolved is the
// resolver's and a stalled rollout the rollout controller's: each records its own Events.
func ownStall(obs *observation) *domain.Stall {
	switch {
	case obs.engineStall != nil:
		return obs.engineStall
	case obs.planStall != nil:
		return obs.planStall
	case obs.suspensionStall != nil:
		return obs.suspensionStall
	}
	return obs.driftStall
}

// rolloutView describes the rollout in progress, else the newest toward the target.
func rolloutView(obs *observation) domain.RolloutView {
	ro := obs.inProgress
	if ro == nil {
		ro = obs.latest
	}
	if ro == nil {
		return domain.RolloutView{}
	}
	steps := make([]domain.Step, 0, len(ro.Spec.Steps))
	for _, s := range ro.Spec.Steps {
		steps = append(steps, domain.Step{Release: releaseID(s.Release), Operation: domain.Operation(s.Operation)})
	}
	phase := domain.Phase(ro.Status.Phase)
	if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
		phase = domain.Phase(outcome)
	}
	return domain.RolloutView{
		Name: ro.Name, Phase: phase, Step: max(int(ro.Status.CurrentStep)-1, 0), Steps: steps,
		Run: ro.Status.ValidationRun, Stall: rolloutStall(ro), Exists: true,
	}
}

func toCondition(t string, c domain.Condition) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message}
}
