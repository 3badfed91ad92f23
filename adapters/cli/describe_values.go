package cli

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
)

// valuesChanges returns, by release ID, why the values change of each Upgrade step needs an
// approver whatever AICR's verdict says (domain.Step.ValuesChange: the overrides or placement
// flags that changed them, ...), judged as the operator judges it from the rollout's two plans
// and the render flags they record. It is nil for an initial install and when a plan is gone
// (retention) or not readable by the caller: describe then shows the steps without it. A
// ConfigMap under a plan's name that is not that plan is warned about.
func (s *session) valuesChanges(ro *aicrv1alpha1.RuntimeRollout) (map[string]string, error) {
	if ro.Spec.FromPlanDigest == "" {
		return nil, nil
	}
	from, err := s.rolloutPlan(ro.Spec.FromPlanDigest)
	if from == nil || err != nil {
		return nil, err
	}
	to, err := s.rolloutPlan(ro.Spec.ToPlanDigest)
	if to == nil || err != nil {
		return nil, err
	}
	tr, err := domain.PlanTransition(domain.TransitionInput{Active: &from.Plan, Target: &to.Plan,
		ActiveRenderFlags: from.RenderFlags, TargetRenderFlags: to.RenderFlags})
	if err != nil {
		s.warn("plans of rollout %s: %v", ro.Name, err)
		return nil, nil
	}
	out := map[string]string{}
	for _, step := range tr.Steps {
		if step.ValuesChange != "" {
			out[step.Release.ID] = step.ValuesChange
		}
	}
	return out, nil
}

// rolloutPlan reads the plan of digest, nil when it is gone or the caller may not read it.
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
