package cli

import (
	"fmt"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// withValues returns plan's domain plan with the values of its releases: inline for a schema 1
// plan, read from the values ConfigMaps a schema 2 plan names and checked against the digests
// it records (configdoc.DecodeValues).
func (s *session) withValues(plan *configdoc.Plan) (*domain.Plan, error) {
	out := plan.Plan
	if len(plan.ValuesRefs) == 0 {
		return &out, nil
	}
	out.Releases = append([]domain.Release{}, plan.Releases...)
	data := map[string]map[string]string{}
	for i, ref := range plan.ValuesRefs {
		if _, ok := data[ref.Name]; !ok {
			cm, err := s.configMap(ref.Name)
			if err != nil {
				return nil, fmt.Errorf("values of plan %s: %w", plan.Digest, err)
			}
			data[ref.Name] = cm.Data
		}
		values, err := configdoc.DecodeValues(ref, out.Releases[i].ValuesDigest, data[ref.Name])
		if err != nil {
			return nil, fmt.Errorf("plan %s, release %s: %w", plan.Digest, out.Releases[i].ID, err)
		}
		out.Releases[i].Values = values
	}
	return &out, nil
}

// specDrift compares the spec digest of the engine object st with the digest the engine renders
// from plan for the same release: "" when they are equal, else why they differ. It never
// reads the object's annotations.
func specDrift(engine EngineReader, plan *domain.Plan, st ports.ReleaseStatus) (string, error) {
	planned, err := engine.SpecDigest(plan.ReleaseSpec(st.Ref, ports.ReleaseOwner{}))
	if err != nil {
		return "", err
	}
	if st.Matches(planned) {
		return "", nil
	}
	return fmt.Sprintf("its spec differs from what plan %s renders for it (edited outside the operator): "+
		"the Application's spec digest is %s, the plan's %s", plan.Digest, st.SpecDigest, planned), nil
}
