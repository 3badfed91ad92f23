package shared

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// The inputs of the resolver's AICR Jobs that come from the runtime's spec: the AICRConfig
// document of the recipe Job and the render flags of the bundle Job. Both are part of the
// Jobs' names (job_names.go), so a changed spec starts new Jobs.

// AICRConfig is the runtime as AICR's v1 AICRConfig document (docs/design/aicr-cli.md section 6):
// criteria, profile and configuration of the recipe.
func AICRConfig(cr *aicrv1alpha1.ClusterRuntime) ([]byte, error) {
	criteria := map[string]string{}
	for k, v := range cr.Spec.Criteria {
		criteria[k] = string(v)
	}
	if cr.Spec.Intent != "" {
		criteria["intent"] = cr.Spec.Intent
	}
	if cr.Spec.Platform != "" {
		criteria["platform"] = cr.Spec.Platform
	}
	recipe := map[string]any{"criteria": criteria}
	if cr.Spec.Profile != "" {
		recipe["profile"] = cr.Spec.Profile
	}
	if cr.Spec.Configuration != nil {
		recipe["configuration"] = cr.Spec.Configuration
	}
	out, err := yaml.Marshal(map[string]any{
		"apiVersion": "aicr.run/v1beta1", "kind": "AICRConfig", "spec": map[string]any{"recipe": recipe},
	})
	if err != nil {
		return nil, fmt.Errorf("encode AICRConfig: %w", err)
	}
	return out, nil
}

// BundleArgs are the render flags of aicr bundle: placement selectors and
// tolerations, then one flag per override: --set <component>:enabled=<bool> for the
// component's top-level toggle (AICR v1 refuses that path in --set-json and points to
// --set), --set-json <component>:<path>=<json> for every other path.
func BundleArgs(cr *aicrv1alpha1.ClusterRuntime) []string {
	var args []string
	for _, g := range []struct {
		name  string
		group aicrv1alpha1.NodeGroup
	}{{"system", cr.Spec.Placement.System}, {"accelerated", cr.Spec.Placement.Accelerated}} {
		for _, k := range slices.Sorted(maps.Keys(g.group.NodeSelector)) {
			args = append(args, "--"+g.name+"-node-selector", k+"="+string(g.group.NodeSelector[k]))
		}
		for _, t := range g.group.Tolerations {
			for _, flag := range tolerationFlags(t) {
				args = append(args, "--"+g.name+"-node-toleration", flag)
			}
		}
	}
	for _, o := range cr.Spec.Overrides {
		if o.Path == "enabled" {
			args = append(args, "--set", o.Component+":enabled="+string(o.Value.Raw))
			continue
		}
		args = append(args, "--set-json", o.Component+":"+o.Path+"="+string(o.Value.Raw))
	}
	return args
}

// taintEffects are the effects AICR's toleration grammar takes.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// tolerationFlags formats t in AICR's toleration grammar, whose values split on ':' into exactly a
// key part and an effect: `*` for an empty key with operator Exists and no effect (every
// taint), key=value:Effect (operator Equal) or key:Effect (Exists). AICR has no form for a
// key of any effect, so an empty effect becomes one value per effect, which tolerates the same
// taints. An empty key with an effect and tolerationSeconds have no form at all:
// domain.CheckTolerations refuses them before a bundle Job runs.
func tolerationFlags(t aicrv1alpha1.Toleration) []string {
	if t.Key == "" && t.Operator == "Exists" && t.Effect == "" {
		return []string{"*"}
	}
	s := t.Key
	if t.Operator != "Exists" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		return []string{s + ":" + string(t.Effect)}
	}
	out := make([]string, 0, len(taintEffects))
	for _, e := range taintEffects {
		out = append(out, s+":"+e)
	}
	return out
}
