package rollout

import (
	"errors"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/shared"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/domain"
)

// unrecordedStarts is a failed write of a pass whose decisions started steps: each start made
// its engine write, which no failed status write takes back, so its StepStarted Event is owed
// even though the status does not record the start. Without it, the next pass finds the
// mutation made, judges the step and records only StepSucceeded (OPS-1).
type unrecordedStarts struct {
	err    error
	ro     *aicrv1alpha1.RuntimeRollout
	starts []app.Decision
}

func (e *unrecordedStarts) Error() string { return e.err.Error() }

func (e *unrecordedStarts) Unwrap() error { return e.err }

// withStarts returns err carrying the step starts among decisions, or err alone when none
// started a step.
func withStarts(err error, ro *aicrv1alpha1.RuntimeRollout, decisions []app.Decision) error {
	var starts []app.Decision
	for _, d := range decisions {
		if reason, _ := eventReason(d.From, d.Out.Status); d.Out.Event != "" && reason == shared.EventStepStarted {
			starts = append(starts, d)
		}
	}
	if len(starts) == 0 {
		return err
	}
	return &unrecordedStarts{err: err, ro: ro, starts: starts}
}

// recordLostStarts records the StepStarted Events a failed write carried (unrecordedStarts),
// except those of steps the rollout read after the failure (fresh; nil: not read) records as
// started: the write of that status recorded them, so each start is recorded once.
func (r *Reconciler) recordLostStarts(fresh *aicrv1alpha1.RuntimeRollout, err error) {
	var lost *unrecordedStarts
	if !errors.As(err, &lost) {
		return
	}
	ro := lost.ro
	var live domain.RolloutStatus
	if fresh != nil {
		ro, live = fresh, toDomainStatus(fresh)
	}
	for _, d := range lost.starts {
		if fresh != nil && startRecorded(live, d.From.Step) {
			continue
		}
		r.record(ro, []app.Decision{d}, nil)
	}
}

// startRecorded reports whether status records step as started: a later step is in flight or
// done, or the step itself has its start.
func startRecorded(status domain.RolloutStatus, step int) bool {
	return status.Step > step || status.Step == step && !status.StepStartedAt.IsZero()
}
