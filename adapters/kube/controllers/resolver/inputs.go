package resolver

import (
	"fmt"

	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// Input file names inside the inputs ConfigMap of a Job (read under ports.JobInputsDir).
const (
	inputConfig   = "config.yaml"
	inputSnapshot = "snapshot.yaml"
	inputRecipe   = "recipe.yaml"
	inputFrom     = "from.yaml"
	inputInherit  = "inherit.yaml"
	inputsDir     = ports.JobInputsDir + "/"
)

// nodePlacement is the spec's placement as the domain checks its node groups.
func nodePlacement(pl aicrv1alpha1.Placement) domain.Placement {
	conv := func(m map[string]aicrv1alpha1.LabelValue) domain.NodeSelector {
		out := domain.NodeSelector{}
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}
	return domain.Placement{System: conv(pl.System.NodeSelector), Accelerated: conv(pl.Accelerated.NodeSelector)}
}

// placementTolerations are the spec's tolerations per node group, as domain.CheckTolerations reads them.
func placementTolerations(pl aicrv1alpha1.Placement) map[string][]domain.Toleration {
	conv := func(ts []aicrv1alpha1.Toleration) []domain.Toleration {
		out := make([]domain.Toleration, 0, len(ts))
		for _, t := range ts {
			out = append(out, domain.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect),
				Bounded: t.TolerationSeconds != nil})
		}
		return out
	}
	return map[string][]domain.Toleration{"system": conv(pl.System.Tolerations), "accelerated": conv(pl.Accelerated.Tolerations)}
}

// specOverrides are the spec's overrides with their values decoded.
func specOverrides(os []aicrv1alpha1.Override) ([]domain.Override, error) {
	out := make([]domain.Override, 0, len(os))
	for _, o := range os {
		var v any
		if err := yaml.Unmarshal(o.Value.Raw, &v); err != nil {
			return nil, fmt.Errorf("override %s %q: %w", o.Component, o.Path, err)
		}
		out = append(out, domain.Override{Component: o.Component, Path: o.Path, Value: v})
	}
	return out, nil
}

// specCriteria are the spec's criteria as domain.CheckSnapshot reads them.
func specCriteria(cr *aicrv1alpha1.ClusterRuntime) map[string]string {
	out := map[string]string{}
	for k, v := range cr.Spec.Criteria {
		out[k] = string(v)
	}
	return out
}
