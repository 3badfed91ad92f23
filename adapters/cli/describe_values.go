package cli

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// rolloutPlans are the rollout's two plans as describe read them, each nil when there is none
// (the from plan of an initial install), it is gone (retention) or the caller may not read it.
type rolloutPlans struct {
	from, to *configdoc.Plan
}

// plans reads the rollout's plans once for every part of describe that needs them.
func (s *session) plans(ro *aicrv1alpha1.RuntimeRollout) (rolloutPlans, error) {
	var p rolloutPlans
	var err error
	if ro.Spec.FromPlanDigest != "" {
		if p.from, err = s.rolloutPlan(ro.Spec.FromPlanDigest); err != nil {
			return rolloutPlans{}, err
		}
	}
	if p.to, err = s.rolloutPlan(ro.Spec.ToPlanDigest); err != nil {
		return rolloutPlans{}, err
	}
	return p, nil
}

// ref returns the release step acts on, with its namespace from the plan that holds it: the
// from plan for a Remove, the target plan otherwise (as the operator maps a step); false when
// that plan is not readable or lacks the release.
func (p rolloutPlans) ref(step aicrv1alpha1.Step) (ports.ReleaseRef, bool) {
	plan := p.to
	if step.Operation == aicrv1alpha1.OperationRemove {
		plan = p.from
	}
	if plan == nil {
		return ports.ReleaseRef{}, false
	}
	for _, r := range plan.Releases {
		if r.ID == step.Release {
			return r.Ref(), true
		}
	}
	return ports.ReleaseRef{}, false
}

// valuesChanges returns, by release ID, why the values change of each Upgrade step needs an
// approver whatever AICR's verdict says (domain.Step.ValuesChange: the overrides or placement
// flags that changed them, ...), judged as the operator judges it from the rollout's two plans
// and the render flags they record. It is nil for an initial install and when a plan is gone
// (retention) or not readable by the caller: describe then shows the steps without it.
func (s *session) valuesChanges(ro *aicrv1alpha1.RuntimeRollout, plans rolloutPlans) map[string]string {
	if plans.from == nil || plans.to == nil {
		return nil
	}
	tr, err := domain.PlanTransition(domain.TransitionInput{Active: &plans.from.Plan, Target: &plans.to.Plan,
		ActiveRenderFlags: plans.from.RenderFlags, TargetRenderFlags: plans.to.RenderFlags})
	if err != nil {
		s.warn("plans of rollout %s: %v", ro.Name, err)
		return nil
	}
	out := map[string]string{}
	for _, step := range tr.Steps {
		if step.ValuesChange != "" {
			out[step.Release.ID] = step.ValuesChange
		}
	}
	return out
}

// rolloutPlan reads the plan of digest, nil when it is gone or the caller may not read it. A
// ConfigMap under a plan's name that is not that plan is warned about.
func (s *session) rolloutPlan(digest string) (*configdoc.Plan, error) {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		s.warn("plan digest %q: %v", digest, err)
		return nil, nil
	}
	plan, err := s.planDocument(name, digest)
	switch {
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		return nil, nil
	case errors.Is(err, ErrNotAPlan):
		s.warn("%v", err)
		return nil, nil
	}
	return plan, err
}
