package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// StepRewriteBound is how many times a step writes its engine object again after something
// changed it (a hand edit, another controller, a mutating webhook): a step writes once, a hand
// edit during the step and a write lost to a restart take a rewrite each, so three leave room
// for both and still stop a controller that changes the object back on every write after a few
// passes. Without the bound two writers would take turns for ever, and every rewrite restarted
// the step's timeout.
const StepRewriteBound = 3

// contested is a step whose engine object was changed back after each of its writes: it stalls
// EngineObjectContested, naming the object and, when the engine can tell, the other writer, and
// writes the object no more. Since nothing restarts it now, the step ends Failed at its step
// timeout (then retry it once the other writer stopped); it goes on as usual if the object asks
// for the planned spec again meanwhile.
func (r *Rollout) contested(ctx context.Context, p Ports, env Environment, s Step, st ports.ReleaseStatus,
	now time.Time) (Outcome, error) {
	object := st.Object
	if object == "" {
		object = "the engine object of " + s.Release.String()
	}
	by := ""
	if w, ok := p.Engine.(ports.SpecWriters); ok {
		writers, err := w.OtherSpecWriters(ctx, s.Release)
		if err != nil && !errors.Is(err, ports.ErrTargetNotFound) {
			return r.stallOrError("writers of "+s.Release.String(), err)
		}
		if len(writers) > 0 {
			by = " by " + strings.Join(writers, ", ")
		}
	}
	what := fmt.Sprintf("%s was changed%s after each of the step's %d writes", object, by, r.status.StepWrites)
	timeout := env.StepTimeout(s)
	if left := timeout - now.Sub(r.status.StepStartedAt); r.status.StepStartedAt.IsZero() || left > 0 {
		out := r.stalled(stallf(StallEngineObjectContested, fmt.Sprintf(
			"step %d/%d %s (%s): %s; it is not written again: stop the other writer, then retry the rollout once it fails at its step timeout (%s)",
			r.status.Step+1, len(r.spec.Steps), s.Release.ID, s.Operation, what, timeout)))
		if left > 0 {
			out.RequeueAfter = left
		}
		return out, nil
	}
	return r.end(PhaseFailed, fmt.Sprintf("step %d/%d %s (%s) not ready within %s: %s",
		r.status.Step+1, len(r.spec.Steps), s.Release.ID, s.Operation, timeout, what)), nil
}
