package cli

import (
	"fmt"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
)

// planDocument reads and checks a plan ConfigMap of the operator namespace (PLAN-6): the plan
// role label, a plan document, a schema-version label equal to the payload's and readable by
// this plugin, and a payload digest equal to the plan-digest annotation, which must be digest
// when digest is known. It reads plans of every schema the operator reads; the values
// ConfigMap of a schema 2 plan is not read (each release keeps its valuesDigest).
func (s *session) planDocument(name, digest string) (*configdoc.Plan, error) {
	cm, err := s.configMap(name)
	if err != nil {
		return nil, err
	}
	annotation := cm.Annotations[aicrv1alpha1.AnnotationPlanDigest]
	raw, ok := cm.Data[configdoc.PlanKey]
	switch {
	case cm.Labels[aicrv1alpha1.LabelRole] != aicrv1alpha1.RolePlan || !ok:
		return nil, fmt.Errorf("configmap %s %w: no %s=%s label or no %s", name, ErrNotAPlan,
			aicrv1alpha1.LabelRole, aicrv1alpha1.RolePlan, configdoc.PlanKey)
	case digest != "" && annotation != digest:
		return nil, fmt.Errorf("plan %s %w: its plan-digest annotation is %q, not %s", name, ErrNotAPlan, annotation, digest)
	}
	plan, err := configdoc.DecodePlan([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("plan %s %w: %w", name, ErrNotAPlan, err)
	}
	label := cm.Labels[aicrv1alpha1.LabelSchemaVersion]
	switch {
	case label != fmt.Sprint(plan.SchemaVersion) || !domain.ReadablePlanSchema(plan.SchemaVersion):
		return nil, fmt.Errorf("plan %s %w: schema-version label %q and payload schemaVersion %d, this plugin reads %s",
			name, ErrNotAPlan, label, plan.SchemaVersion, domain.ReadablePlanSchemas())
	case plan.Digest != annotation:
		return nil, fmt.Errorf("plan %s %w: payload digest %s differs from its annotation %s", name, ErrNotAPlan, plan.Digest, annotation)
	}
	return plan, nil
}
