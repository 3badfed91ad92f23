package runtime

import (
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

func releaseID(id string) ports.ReleaseRef { return ports.ReleaseRef{ID: id} }

// releasesReady reports whether every release of the active plan has an engine object carrying
// the active plan that asks for exactly the spec the plan renders and is ready at it.
func releasesReady(obs *observation) bool {
	if obs.activePlan == nil {
		return false
	}
	live := map[ports.ReleaseRef]ports.ReleaseStatus{}
	for _, s := range obs.live {
		live[s.Ref] = s
	}
	for _, rel := range obs.activePlan.Releases {
		s, ok := live[rel.Ref()]
		if !ok || !s.ReadyAt(obs.planned[rel.Ref()]) || s.Owner.RuntimeUID != obs.uid || s.Owner.PlanDigest != obs.active {
			return false
		}
	}
	return true
}

// available derives Available (CR-9) from the runtime's engine objects: each counts at the
// plan it carries; a release whose Remove step started no longer counts; a release the
// rollout in progress (or the failed one) installs counts once it succeeds; the release of the
// step in flight leaves Available as it was.
func available(obs *observation, previous domain.ConditionStatus) domain.Condition {
	removing, installing, inFlight := map[string]bool{}, map[string]bool{}, ""
	if ro := movingRollout(obs); ro != nil {
		current := max(int(ro.Status.CurrentStep)-1, 0)
		for i, s := range ro.Spec.Steps {
			switch {
			case s.Operation == aicrv1alpha1.OperationRemove && i <= current && ro.Status.CurrentStep > 0:
				removing[s.Release] = true
			case s.Operation == aicrv1alpha1.OperationInstall:
				installing[s.Release] = true
			}
		}
		if ro.Status.Phase == aicrv1alpha1.PhaseProgressing && ro.Status.CurrentStep > 0 {
			inFlight = ro.Spec.Steps[current].Release
		}
	}
	var rels []domain.ReleaseAvailability
	for _, s := range obs.live {
		if s.Owner.RuntimeUID != obs.uid {
			continue
		}
		rels = append(rels, domain.ReleaseAvailability{
			ID: s.Ref.ID, Healthy: s.Health == ports.HealthHealthy, Drifted: !atPlannedSpec(obs, s), Counted: true, Removing: removing[s.Ref.ID],
			Installing: installing[s.Ref.ID], InFlight: s.Ref.ID == inFlight,
		})
	}
	if obs.active == "" && len(rels) == len(installing) {
		return domain.Condition{Status: domain.ConditionFalse, Reason: domain.ReasonNoActivePlan, Message: "no plan is rolled out yet"}
	}
	return domain.AvailableCondition(rels, previous)
}

// movingRollout is the rollout in progress, else a failed one toward the target.
func movingRollout(obs *observation) *aicrv1alpha1.RuntimeRollout {
	if obs.inProgress != nil {
		return obs.inProgress
	}
	if obs.latest != nil && obs.latest.Labels[aicrv1alpha1.LabelOutcome] != string(aicrv1alpha1.PhaseSucceeded) {
		return obs.latest
	}
	return nil
}

// atPlannedSpec reports whether the engine object s asks for the spec that the plan it records,
// the active or the target one, renders for its release; true when the specs of that plan are
// not known (another plan, or the plans not read), which leaves it unjudged.
func atPlannedSpec(obs *observation, s ports.ReleaseStatus) bool {
	var planned map[ports.ReleaseRef]string
	switch s.Owner.PlanDigest {
	case obs.active:
		planned = obs.planned
	case obs.target:
		planned = obs.targetPlanned
	}
	return planned == nil || s.Matches(planned[s.Ref])
}
