package rollout

import (
	"context"
	"errors"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// unrecordedEvents is a failed write of a pass whose decisions' Events are owed: each step start
// made its engine write, which no failed status write takes back, so its StepStarted Event is
// owed even though the status does not record the start; without it, the next pass finds the
// mutation made, judges the step and records only StepSucceeded (OPS-1). Once the pass set the
// outcome label, every decision of the pass is owed: the label is set once and the next pass
// only settles the status (settleEnded), deciding none of them again.
type unrecordedEvents struct {
	err  error
	ro   *aicrv1alpha1.RuntimeRollout
	owed []app.Decision
}

func (e *unrecordedEvents) Error() string { return e.err.Error() }

func (e *unrecordedEvents) Unwrap() error { return e.err }

// withOwedEvents returns err carrying the decisions whose Events are owed (the step starts, or
// with labelled every decision), or err alone when none is.
func withOwedEvents(err error, ro *aicrv1alpha1.RuntimeRollout, decisions []app.Decision, labelled bool) error {
	var owed []app.Decision
	for _, d := range decisions {
		if labelled || d.Out.Event != "" && d.Out.EventReason == domain.EventStepStarted {
			owed = append(owed, d)
		}
	}
	if len(owed) == 0 {
		return err
	}
	return &unrecordedEvents{err: err, ro: ro, owed: owed}
}

// recordLostEvents records the Events a failed write owed (unrecordedEvents), except those of
// decisions the rollout read after the failure (fresh; nil: not read) already shows: the write
// of that status recorded them, so each is recorded once.
func (r *Reconciler) recordLostEvents(ctx context.Context, fresh *aicrv1alpha1.RuntimeRollout, err error) {
	var lost *unrecordedEvents
	if !errors.As(err, &lost) {
		return
	}
	ro := lost.ro
	var live domain.RolloutStatus
	if fresh != nil {
		// The phase is the one the status was written with: an outcome label set by the pass that
		// owes the Events shows no write that recorded them.
		ro, live = fresh, toDomainStatus(fresh)
		live.Phase = domain.Phase(fresh.Status.Phase)
	}
	for _, d := range lost.owed {
		if fresh != nil && shownIn(live, d.Out.Status) {
			continue
		}
		r.record(ctx, ro, []app.Decision{d}, nil)
	}
}

// shownIn reports whether status shows a decision's outcome to: the outcome itself, or a later
// step, or the same step already started where to had not started it.
func shownIn(status, to domain.RolloutStatus) bool {
	if to.Phase.Terminal() {
		return status.Phase == to.Phase
	}
	return status.Step > to.Step || status.Step == to.Step && (to.StepStartedAt.IsZero() || !status.StepStartedAt.IsZero())
}
