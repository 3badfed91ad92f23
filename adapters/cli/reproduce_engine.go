package cli

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// The values of an Application's line in reproduce's comparison.
const (
	// appAsPlanned: the Application asks for exactly the spec the plan renders for its release.
	appAsPlanned = "as planned"
	// appMissing: the release has no Application.
	appMissing = "missing: the release has no Application"
)

// compareApplications compares the Application of each release of plan, when it is the
// runtime's active plan, with the spec the plan renders for it (the digest the operator
// computes, never an annotation read back) and prints one line per release. It returns
// ErrApplicationsDiffer, so the command exits non-zero, when any differs. Without an engine,
// or when the plan is not the active one or the caller may not read the Applications, it
// says why it did not compare and returns nil.
func (s *session) compareApplications(plan *configdoc.Plan) error {
	if s.o.Engine == nil {
		return nil
	}
	cr, err := s.clusterRuntime()
	if err != nil {
		s.warn("Applications not compared with the plan: %v", err)
		return nil
	}
	if cr.Status.ActivePlanDigest != plan.Digest {
		return s.o.say("\nApplications not compared: plan %s is not the active plan", plan.Digest)
	}
	full, err := s.withValues(plan)
	if err != nil {
		s.warn("Applications not compared with the plan: %v", err)
		return nil
	}
	ec := s.engineConfig()
	engine, err := s.o.Engine(s.config, ec)
	if err != nil {
		return fmt.Errorf("build the Argo CD client: %w", err)
	}
	lines, differ, err := s.applicationLines(engine, full, string(cr.UID))
	if err != nil {
		if errors.Is(err, ports.ErrUnauthorized) || errors.Is(err, ports.ErrEngineMissing) {
			s.warn("Applications not compared with the plan: %v", err)
			return nil
		}
		return err
	}
	p := &printer{w: s.o.Out}
	p.printf("\nApplications in %s against plan %s:\n", ec.Namespace, plan.Digest)
	for _, l := range lines {
		p.printf("  %s\n", l)
	}
	p.printf("%d of %d Applications differ from the plan.\n", differ, len(full.Releases))
	if err := p.result("output"); err != nil {
		return err
	}
	if differ > 0 {
		return fmt.Errorf("%d of %d Applications of plan %s: %w", differ, len(full.Releases), plan.Digest, ErrApplicationsDiffer)
	}
	return nil
}

// applicationLines judges the Application of each release of plan: as planned, missing, of
// another runtime, or drifted (specDrift); differ counts all but the first.
func (s *session) applicationLines(engine EngineReader, plan *domain.Plan, runtimeUID string) (lines []string, differ int, err error) {
	for _, rel := range plan.Releases {
		st, err := engine.Status(s.ctx, rel.Ref())
		what := appAsPlanned
		switch {
		case errors.Is(err, ports.ErrTargetNotFound):
			what = appMissing
		case err != nil:
			return nil, 0, s.check("get the Application of release "+rel.Ref().String(), err)
		case st.Owner.RuntimeUID != runtimeUID:
			what = fmt.Sprintf("foreign: it records runtime %q, not this one", st.Owner.RuntimeUID)
		default:
			drift, derr := specDrift(engine, plan, st)
			if derr != nil {
				return nil, 0, fmt.Errorf("render the spec of %s: %w", rel.Ref(), derr)
			}
			if drift != "" {
				what = "drifted: " + drift
			}
		}
		if what != appAsPlanned {
			differ++
		}
		lines = append(lines, rel.Ref().String()+": "+what)
	}
	return lines, differ, nil
}
