package domain

import (
	"context"
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// abandonValidation ends a rollout whose runtime's target moved while it validated: its run is
// deleted, so neither its report nor its evidence is ever used, and the rollout ends Superseded;
// the rollout toward the new target runs a validation run of its own (RO-10).
func (r *Rollout) abandonValidation(ctx context.Context, p Ports, ref ports.JobRef, env Environment) (Outcome, error) {
	msg := "the runtime's target is now plan " + env.TargetPlanDigest
	if ref.Name != "" {
		if err := p.Jobs.Delete(ctx, ref); err != nil {
			return r.stallOrError("delete abandoned validation run", err)
		}
		msg += "; deployment validation run " + ref.Name + " abandoned"
	}
	return r.end(PhaseSuperseded, msg), nil
}

// validationTimedOut ends the rollout Failed once the validation run in flight has run longer
// than its bound (Environment.ValidationTimeout) by the Clock, deleting the run so its
// validator stops and its report is never used; decided reports that it did (or that the
// delete failed). A run whose start was not recorded (a lost status) has its start recorded
// now, in the status the caller returns: its bound starts again rather than ending it
// unmeasured.
func (r *Rollout) validationTimedOut(ctx context.Context, p Ports, ref ports.JobRef, env Environment, now time.Time) (
	out Outcome, decided bool, err error) {
	bound := env.validationTimeout()
	switch started := r.status.ValidationStartedAt; {
	case started.IsZero():
		r.status.ValidationStartedAt = now
		return Outcome{}, false, nil
	case now.Sub(started) < bound:
		return Outcome{}, false, nil
	}
	if err = p.Jobs.Delete(ctx, ref); err != nil {
		out, err = r.stallOrError("delete timed-out validation run", err)
		return out, true, err
	}
	return r.end(PhaseFailed, fmt.Sprintf("deployment validation run %s timed out: it ran longer than %s "+
		"(chart value validation.timeout, --validation-timeout); the run was deleted. Find what held it up in "+
		"the validation namespace's events and pods, raise the bound if the checks need longer, then retry",
		ref.Name, bound)), true, nil
}
