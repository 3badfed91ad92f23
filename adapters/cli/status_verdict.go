package cli

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

var (
	// ErrRolloutUnsuccessful is returned by status when the rollout ended without succeeding.
	ErrRolloutUnsuccessful = errors.New("ended without succeeding")
	// ErrRolloutStalled is returned by status when the rollout cannot progress without a change
	// to its spec or to the cluster.
	ErrRolloutStalled = errors.New("is stalled")
	// ErrRolloutDeleted is returned by status -w when the rollout is deleted while followed.
	ErrRolloutDeleted = errors.New("was deleted")
	// ErrWatchTimeout is returned by status -w when --timeout passes before the rollout ends.
	ErrWatchTimeout = errors.New("did not end within --timeout")
)

// verdict is what status makes of a rollout.
type verdict int

const (
	// inProgress is a rollout that runs its steps or waits for an approver.
	inProgress verdict = iota
	// succeeded is a rollout that ended Succeeded.
	succeeded
	// unsuccessful is a rollout that ended otherwise or is stalled.
	unsuccessful
)

// unsuccessfulOutcomes are the outcomes that leave the rollout's change not, or not wholly, in
// the cluster: a pipeline that waited for the rollout failed.
var unsuccessfulOutcomes = map[aicrv1alpha1.Phase]bool{
	aicrv1alpha1.PhaseFailed:     true,
	aicrv1alpha1.PhaseExpired:    true,
	aicrv1alpha1.PhaseRevoked:    true,
	aicrv1alpha1.PhaseSuperseded: true,
	aicrv1alpha1.PhaseOrphaned:   true,
}

// judge returns the verdict on ro and, when it is unsuccessful, the error status exits with. The
// outcome label, set once by the operator, wins over a phase it has not written yet; a Stalled
// condition counts only for the spec generation it describes, so an approval or acknowledgement
// the operator has not seen yet does not read as a stall, and a rollout that only waits (for an
// approver, a change window or protected workloads, StallReason.Waits) is still in progress.
func judge(ro *aicrv1alpha1.RuntimeRollout) (verdict, error) {
	phase := outcomeOf(ro)
	switch {
	case phase == aicrv1alpha1.PhaseSucceeded:
		return succeeded, nil
	case unsuccessfulOutcomes[phase]:
		return unsuccessful, fmt.Errorf("rollout %s %w: %s%s", ro.Name, ErrRolloutUnsuccessful, phase,
			detail(ro.Status.Message))
	}
	stalled := meta.FindStatusCondition(ro.Status.Conditions, aicrv1alpha1.ConditionStalled)
	if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.ObservedGeneration != ro.Generation ||
		domain.StallReason(stalled.Reason).Waits() {
		return inProgress, nil
	}
	return unsuccessful, fmt.Errorf("rollout %s %w: %s%s", ro.Name, ErrRolloutStalled, stalled.Reason,
		detail(stalled.Message))
}

// outcomeOf is the rollout's outcome label when it has one, else its phase.
func outcomeOf(ro *aicrv1alpha1.RuntimeRollout) aicrv1alpha1.Phase {
	if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
		return aicrv1alpha1.Phase(outcome)
	}
	return ro.Status.Phase
}

// statusLine is the line status prints about ro: its phase, the step in flight with its
// release's state, and the operator's message.
func statusLine(ro *aicrv1alpha1.RuntimeRollout) string {
	phase := string(outcomeOf(ro))
	if phase == "" {
		phase = "no status yet"
	}
	var b strings.Builder
	b.WriteString(ro.Name + ": " + phase)
	if n, total := int(ro.Status.CurrentStep), len(ro.Spec.Steps); n > 0 && n <= total {
		release := ro.Spec.Steps[n-1].Release
		fmt.Fprintf(&b, ", step %d/%d %s", n, total, release)
		for _, r := range ro.Status.Releases {
			if r.Release == release && r.State != "" {
				b.WriteString(" " + string(r.State))
			}
		}
	}
	b.WriteString(detail(ro.Status.Message))
	return b.String()
}

// detail is ": message", or nothing for an empty message.
func detail(message string) string {
	if message == "" {
		return ""
	}
	return ": " + message
}
