package cli

import (
	"fmt"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// planDocument reads a plan ConfigMap of the operator namespace and checks it as the operator
// does (plantrust, PLAN-6): the plan role label, a plan document, a plan-digest annotation that
// is digest when digest is known, a schema-version label equal to the payload's and readable
// by this plugin, and a payload digest equal to the annotation. The plugin does not check the
// runtime the plan records. It reads plans of every schema the operator reads; the values
// ConfigMap of a schema 2 plan is not read (each release keeps its valuesDigest). These checks
// are unkeyed (plantrust): whoever can write the ConfigMap can pass them, and the plugin, which
// holds no seal key, cannot check the operator's seal (plantrust.Unsealed) as the operator does;
// reproduce says so (unkeyedCheck).
func (s *session) planDocument(name, digest string) (*configdoc.Plan, error) {
	cm, err := s.configMap(name)
	if err != nil {
		return nil, err
	}
	plan, refusal := plantrust.Decode(cm)
	if refusal == nil {
		stored := plantrust.Header(cm, plan)
		if digest == "" {
			digest = stored.DigestAnnotation
		}
		refusal = plantrust.Check(stored, digest, stored.RuntimeUID)
		if refusal != nil && refusal.Failed == plantrust.Schema {
			return nil, fmt.Errorf("plan %s %w: schema-version label %q and payload schemaVersion %d, this plugin reads %s",
				name, ErrNotAPlan, stored.SchemaLabel, stored.PayloadSchema, domain.ReadablePlanSchemas())
		}
	}
	if refusal != nil {
		return nil, fmt.Errorf("plan %s %w: %s", name, ErrNotAPlan, refusal.Stall.Message())
	}
	return plan, nil
}
