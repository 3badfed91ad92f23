package cli

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// EngineReader is what describe and reproduce need of the deployment engine: its read-only view
// of one release and the spec digest it renders from a plan's release. A
// ports.DeploymentEngine is one.
type EngineReader interface {
	// Status returns the engine's view of ref: ports.ErrTargetNotFound when its engine object
	// does not exist, ports.ErrUnauthorized when the caller may not read it.
	Status(ctx context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error)
	// SpecDigest returns the ReleaseStatus.SpecDigest of an engine object written for spec.
	SpecDigest(spec ports.ReleaseSpec) (string, error)
}

// The values of describeEngine.Sync.
const (
	// engineSynced: the engine applied the revision its object asks for.
	engineSynced = "Synced"
	// engineOutOfSync: the engine has not (yet) applied it.
	engineOutOfSync = "OutOfSync"
	// engineDrifted: the engine object asks for another spec than the plan renders for it.
	engineDrifted = "Drifted"
	// engineNotFound: the release has no engine object.
	engineNotFound = "NotFound"
	// engineForeign: the engine object records another runtime, or none.
	engineForeign = "Foreign"
	// engineUnknown: the plan that names the release's namespace is gone or not readable.
	engineUnknown = "Unknown"
)

// describeEngine is the deployment engine's live view of a step's release (Argo CD's
// Application): whether it is synced, its health and, when useful, its last sync operation and
// message. A foreign object shows only whose it is, never its health as the step's.
type describeEngine struct {
	Sync      string `json:"sync"`
	Health    string `json:"health,omitempty"`
	Operation string `json:"operation,omitempty"`
	Message   string `json:"message,omitempty"`
	// OwnerRuntimeUID is the runtime a foreign object records ("" when none).
	OwnerRuntimeUID string `json:"ownerRuntimeUID,omitempty"`
	// Drift says how the object's spec differs from the plan's (Sync is Drifted).
	Drift string `json:"drift,omitempty"`
}

// errEngineNotShown ends engineViews without the engine columns; the warning was printed.
var errEngineNotShown = errors.New("engine status not shown")

// engineViews returns the engine's view of each step's release, in step order. It is nil when
// describe has no engine (Options.Engine), and when the caller may not read the runtime or the
// engine's objects or Argo CD is not installed: a warning says which, and describe shows the
// steps without the engine columns.
func (s *session) engineViews(ro *aicrv1alpha1.RuntimeRollout, plans rolloutPlans) ([]describeEngine, error) {
	if s.o.Engine == nil || len(ro.Spec.Steps) == 0 {
		return nil, nil
	}
	cr, err := s.clusterRuntime()
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		s.warn("Argo CD status not shown: %v (the runtime tells which Applications are its own)", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	engine, err := s.o.Engine(s.config, s.engineConfig())
	if err != nil {
		return nil, fmt.Errorf("build the Argo CD client: %w", err)
	}
	judge := &driftJudge{target: s.targetWithValues(plans)}
	views := make([]describeEngine, len(ro.Spec.Steps))
	for i, step := range ro.Spec.Steps {
		ref, ok := plans.ref(step)
		if !ok {
			views[i] = describeEngine{Sync: engineUnknown}
			continue
		}
		var j *driftJudge
		if step.Operation != aicrv1alpha1.OperationRemove {
			j = judge
		}
		if views[i], err = s.engineView(engine, ref, string(cr.UID), j); err != nil {
			if errors.Is(err, errEngineNotShown) {
				return nil, nil
			}
			return nil, err
		}
	}
	return views, nil
}

// targetWithValues is the rollout's target plan with its values, nil (after a warning) when
// they cannot be read: describe then does not judge drift.
func (s *session) targetWithValues(plans rolloutPlans) *domain.Plan {
	if plans.to == nil {
		return nil
	}
	plan, err := s.withValues(plans.to)
	if err != nil {
		s.warn("drift from the plan not shown: %v", err)
		return nil
	}
	return plan
}

// driftJudge holds the plan describe judges the steps' engine objects against (nil: none). The
// first spec the engine cannot render (the operator's registry is not known) warns once and
// ends the judging.
type driftJudge struct {
	target *domain.Plan
}

// drift is specDrift of st against the target plan, "" when there is none or nothing to judge.
func (j *driftJudge) drift(s *session, engine EngineReader, st ports.ReleaseStatus) string {
	if j == nil || j.target == nil {
		return ""
	}
	drift, err := specDrift(engine, j.target, st)
	if err != nil {
		s.warn("drift from plan %s not shown: %v (the operator's Deployment %s/%s names the registry; "+
			"reading it needs get on that Deployment)", j.target.Digest, err, s.o.namespace(), OperatorDeployment)
		j.target = nil
	}
	return drift
}

// engineView asks the engine about ref and keeps what describe shows of it; an object that
// does not record runtimeUID is foreign, and one whose spec is not what the judge's plan
// renders for ref is Drifted (judge nil: not judged). It returns errEngineNotShown, after a
// warning, when the caller may not read the engine's objects or the engine is not installed.
func (s *session) engineView(engine EngineReader, ref ports.ReleaseRef, runtimeUID string, judge *driftJudge) (describeEngine, error) {
	st, err := engine.Status(s.ctx, ref)
	switch {
	case errors.Is(err, ports.ErrTargetNotFound):
		return describeEngine{Sync: engineNotFound}, nil
	case errors.Is(err, ports.ErrUnauthorized):
		s.warn("Argo CD status not shown: getting applications.argoproj.io in namespace %s is forbidden to you",
			s.o.engineNamespace())
		return describeEngine{}, errEngineNotShown
	case errors.Is(err, ports.ErrEngineMissing):
		s.warn("Argo CD status not shown: the cluster serves no applications.argoproj.io (Argo CD is not installed)")
		return describeEngine{}, errEngineNotShown
	case err != nil:
		return describeEngine{}, s.check("get the Argo CD status of release "+ref.String(), err)
	}
	if st.Owner.RuntimeUID != runtimeUID {
		return describeEngine{Sync: engineForeign, OwnerRuntimeUID: st.Owner.RuntimeUID}, nil
	}
	view := describeEngine{Sync: engineOutOfSync, Health: string(st.Health), Operation: string(st.Operation), Message: st.Message}
	if st.Synced() {
		view.Sync = engineSynced
	}
	if drift := judge.drift(s, engine, st); drift != "" {
		view.Sync, view.Drift = engineDrifted, drift
	}
	return view, nil
}
