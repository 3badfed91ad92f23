package domain

import (
	"context"
	"errors"

	"github.com/nvidia/aicr-operator/ports"
)

// validate runs AICR deployment validation as a job and records evidence (RO-10).
func (r *Rollout) validate(ctx context.Context, p Ports, env Environment) (Outcome, error) {
	ref := ports.JobRef{Name: r.status.ValidationRun}
	st, err := p.Jobs.Status(ctx, ref)
	if errors.Is(err, ports.ErrJobNotFound) {
		_, err = p.Jobs.Start(ctx, ports.JobSpec{
			Name: ref.Name, Kind: ports.JobValidate, Image: env.ValidationImage,
			Args:  []string{"validate", "--phase", "deployment"},
			Owner: ports.ReleaseOwner{RuntimeUID: r.spec.RuntimeUID, PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name},
		})
		if err != nil {
			return r.stallOrError("start validation", err)
		}
		return Outcome{Status: r.status, RequeueAfter: pollInterval, Event: r.status.Message + " started"}, nil
	}
	if err != nil {
		return r.stallOrError("validation status", err)
	}
	switch st.State {
	case ports.JobSucceeded:
		ev, err := r.evidence(ctx, p, env)
		if err != nil {
			return r.stallOrError("collect validation evidence", err)
		}
		digest, err := p.Registry.PushEvidence(ctx, ev)
		if err != nil {
			return r.stallOrError("push validation evidence", err)
		}
		out := r.end(PhaseSucceeded, "deployment validation passed")
		out.EvidenceDigest = digest
		return out, nil
	case ports.JobFailed:
		return r.end(PhaseFailed, "deployment validation run "+ref.Name+" failed: "+st.Message), nil
	case ports.JobRunning:
	}
	return Outcome{Status: r.status, RequeueAfter: pollInterval}, nil
}
