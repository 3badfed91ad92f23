package rollout

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// toDomainSpec maps a RuntimeRollout onto the domain. A step's namespace comes from the plan
// holding its release: the active plan for a Remove, the target plan otherwise; a release the
// plan lacks keeps an empty namespace, which the domain reports as StepUnknown. A step pauses
// for acknowledgement before its apply only when the rollout recorded that it does (RO-9).
func toDomainSpec(ro *aicrv1alpha1.RuntimeRollout, target, active *domain.Plan) domain.RolloutSpec {
	steps := make([]domain.Step, 0, len(ro.Spec.Steps))
	targetIndex, activeIndex := releaseIndex(target), releaseIndex(active)
	for _, s := range ro.Spec.Steps {
		plan, index := target, targetIndex
		if s.Operation == aicrv1alpha1.OperationRemove {
			plan, index = active, activeIndex
		}
		ref, component := releaseRef(plan, index, s.Release)
		steps = append(steps, domain.Step{
			Release: ref, Component: component, Operation: domain.Operation(s.Operation),
			Assessment: ports.UpgradeVerdict(s.Assessment), ChangesCRDs: s.ChangesCRDs,
			AcknowledgeBeforeApply: s.AcknowledgeBeforeApply, Disruption: s.Disruption,
		})
	}
	return domain.RolloutSpec{
		Name: ro.Name, RuntimeUID: ro.Spec.RuntimeUID, FromPlanDigest: ro.Spec.FromPlanDigest,
		ToPlanDigest: ro.Spec.ToPlanDigest, StartingInventoryDigest: ro.Spec.StartingInventoryDigest,
		CreatedAt: ro.CreationTimestamp.Time, Deadline: ro.Spec.Deadline.Time,
		ApprovalRequired: ro.Spec.ApprovalRequired, Steps: steps, Approval: toDomainApproval(ro.Spec.Approval),
	}
}

// releaseIndex maps the IDs of plan's releases to their positions, so a rollout of n steps
// finds its releases in O(n) on every reconcile, not O(n²).
func releaseIndex(plan *domain.Plan) map[string]int {
	if plan == nil {
		return nil
	}
	index := make(map[string]int, len(plan.Releases))
	for i := range plan.Releases {
		if _, dup := index[plan.Releases[i].ID]; !dup {
			index[plan.Releases[i].ID] = i // the first, as a search in plan order finds
		}
	}
	return index
}

// releaseRef returns the ref and component of the release id of plan (index: releaseIndex of
// plan); a release the plan lacks has only its ID.
func releaseRef(plan *domain.Plan, index map[string]int, id string) (ports.ReleaseRef, string) {
	if i, ok := index[id]; ok {
		r := &plan.Releases[i]
		return r.Ref(), r.Component
	}
	return ports.ReleaseRef{ID: id}, ""
}

func toDomainApproval(a *aicrv1alpha1.Approval) domain.Approval {
	if a == nil {
		return domain.Approval{}
	}
	out := domain.Approval{
		ApprovedBy: a.ApprovedBy, ExpiresAt: timeOf(a.ExpiresAt), Reason: a.Reason,
		RevokedBy: a.RevokedBy, RevokedAt: timeOf(a.RevokedAt), RevokeReason: a.RevokeReason,
	}
	for _, ack := range a.Acknowledgements {
		out.Acknowledgements = append(out.Acknowledgements, domain.Acknowledgement{
			Release: ack.Release, AcknowledgedBy: ack.AcknowledgedBy, AcknowledgedAt: ack.AcknowledgedAt.Time,
		})
	}
	for _, o := range a.DisruptionOverrides {
		out.Overrides = append(out.Overrides, domain.DisruptionOverride{
			Release: o.Release, OverriddenBy: o.OverriddenBy, OverriddenAt: o.OverriddenAt.Time, Reason: o.Reason,
		})
	}
	return out
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}

// toDomainStatus rebuilds the domain status from the persisted one. The step in flight is the
// first step whose release is not Ready or Removed; a restored rollout without status starts
// from its outcome label (RO-13) or Pending and re-judges its steps from the engine objects.
func toDomainStatus(ro *aicrv1alpha1.RuntimeRollout) domain.RolloutStatus {
	st := domain.RolloutStatus{
		Phase: domain.Phase(ro.Status.Phase), Message: ro.Status.Message, ValidationRun: ro.Status.ValidationRun,
		ValidationStartedAt: timeOf(ro.Status.ValidationStartedAt),
	}
	switch outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; {
	case outcome != "":
		st.Phase = domain.Phase(outcome)
	case st.Phase.Terminal():
		// The operator sets the outcome label before it writes a terminal phase (RO-6), so a
		// terminal phase without the label is not its own: the status is judged afresh.
		return domain.RolloutStatus{Phase: domain.PhasePending}
	}
	done := map[string]aicrv1alpha1.ReleaseStatus{}
	for _, r := range ro.Status.Releases {
		done[r.Release] = r
	}
	for st.Step < len(ro.Spec.Steps) {
		r := done[ro.Spec.Steps[st.Step].Release]
		if r.State != aicrv1alpha1.ReleaseReady && r.State != aicrv1alpha1.ReleaseRemoved {
			st.StepStartedAt, st.StepWrites = timeOf(r.StartedAt), int(r.Writes)
			break
		}
		st.Step++
	}
	return st
}

// toStatus maps the domain status onto a copy of the persisted status.
func toStatus(ro *aicrv1alpha1.RuntimeRollout, st domain.RolloutStatus, stall *domain.Stall, now time.Time) aicrv1alpha1.RuntimeRolloutStatus {
	out := *ro.Status.DeepCopy()
	out.ObservedGeneration = ro.Generation
	out.Phase, out.Message, out.ValidationRun = aicrv1alpha1.Phase(st.Phase), domain.Truncate(st.Message), st.ValidationRun
	out.ValidationStartedAt = nil
	if !st.ValidationStartedAt.IsZero() {
		out.ValidationStartedAt = &metav1.Time{Time: st.ValidationStartedAt}
	}
	out.CurrentStep = 0
	if st.Phase != domain.PhasePending && st.Phase != domain.PhaseAwaitingApproval && len(ro.Spec.Steps) > 0 {
		out.CurrentStep = int32(min(st.Step+1, len(ro.Spec.Steps))) // #nosec G115 -- at most 256 steps (RO-5)
	}
	out.Releases = releaseStates(ro, st, out.Releases)
	if out.StartedAt == nil && !st.StepStartedAt.IsZero() {
		out.StartedAt = &metav1.Time{Time: st.StepStartedAt}
	}
	if st.Phase.Terminal() && out.CompletedAt == nil {
		out.CompletedAt = &metav1.Time{Time: now}
	}
	out.Conditions = rolloutConditions(ro, st, stall, now)
	return out
}

func releaseStates(ro *aicrv1alpha1.RuntimeRollout, st domain.RolloutStatus, prev []aicrv1alpha1.ReleaseStatus) []aicrv1alpha1.ReleaseStatus {
	byID := map[string]aicrv1alpha1.ReleaseStatus{}
	for _, r := range prev {
		byID[r.Release] = r
	}
	out := make([]aicrv1alpha1.ReleaseStatus, 0, len(ro.Spec.Steps))
	seen := map[string]bool{}
	for i, s := range ro.Spec.Steps {
		if seen[s.Release] {
			continue
		}
		seen[s.Release] = true
		r := byID[s.Release]
		r.Release, r.Message = s.Release, ""
		switch {
		case i < st.Step && s.Operation == aicrv1alpha1.OperationRemove:
			r.State = aicrv1alpha1.ReleaseRemoved
		case i < st.Step:
			r.State = aicrv1alpha1.ReleaseReady
		case i == st.Step && st.Phase == domain.PhaseFailed && !st.StepStartedAt.IsZero():
			r.State, r.Message = aicrv1alpha1.ReleaseFailed, domain.Truncate(st.Message)
		case i == st.Step && !st.StepStartedAt.IsZero():
			r.State, r.StartedAt, r.Message = aicrv1alpha1.ReleaseInFlight, &metav1.Time{Time: st.StepStartedAt}, domain.Truncate(st.Message)
			r.Writes = int32(min(st.StepWrites, 1000)) // #nosec G115 -- bounded by domain.StepRewriteBound
		case r.State == aicrv1alpha1.ReleaseUnknown:
		default:
			r.State = aicrv1alpha1.ReleasePending
		}
		out = append(out, r)
	}
	return out
}
