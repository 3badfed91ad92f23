package rollout

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// rolloutConditions derives a rollout's kstatus conditions from its domain status: Ready=True
// once it ended with nothing left to do (succeeded, superseded by a newer target or orphaned by
// its runtime's deletion: kstatus Current, OPS-3), the reason naming which; Stalled with the
// stall reason (RO-11) while it cannot progress or after a failed, expired or revoked outcome;
// Reconciling with the phase while it progresses.
func rolloutConditions(ro *aicrv1alpha1.RuntimeRollout, st domain.RolloutStatus, stall *domain.Stall,
	now time.Time) []metav1.Condition {
	conds := append([]metav1.Condition(nil), ro.Status.Conditions...)
	gen := ro.Generation
	switch {
	case stall != nil:
		shared.MarkStalled(&conds, string(stall.Reason()), stall.Message(), gen, now)
	case st.Phase == domain.PhaseSucceeded || st.Phase == domain.PhaseSuperseded || st.Phase == domain.PhaseOrphaned:
		shared.ClearProgress(&conds)
		shared.SetCondition(&conds, metav1.Condition{Type: shared.CondReady, Status: metav1.ConditionTrue,
			Reason: string(st.Phase), Message: nonEmpty(st.Message, "rollout "+strings.ToLower(string(st.Phase)))}, gen, now)
	case st.Phase.Terminal():
		shared.ClearProgress(&conds)
		shared.SetCondition(&conds, metav1.Condition{Type: shared.CondReady, Status: metav1.ConditionFalse,
			Reason: string(st.Phase), Message: nonEmpty(st.Message, "rollout "+string(st.Phase))}, gen, now)
	default:
		msg := nonEmpty(st.Message, "rollout "+ro.Name+" "+string(st.Phase))
		shared.MarkReconciling(&conds, string(st.Phase), msg, gen, now)
		shared.SetCondition(&conds, metav1.Condition{Type: shared.CondReady, Status: metav1.ConditionFalse,
			Reason: string(st.Phase), Message: msg}, gen, now)
	}
	return conds
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
