package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

// Input file names inside the inputs ConfigMap of a Job (read under ports.JobInputsDir).
const (
	resInputConfig   = "config.yaml"
	resInputSnapshot = "snapshot.yaml"
	resInputRecipe   = "recipe.yaml"
	resInputFrom     = "from.yaml"
	resInputsDir     = ports.JobInputsDir + "/"
)

// jobName derives a Job name from its kind and a hash of everything that
// determines its result, so Start is idempotent and a changed input starts a
// new Job (and an unchanged one reuses the kept result).
func resJobName(kind string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		_, _ = fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return "aicr-" + kind + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// snapshotJob keys the snapshot by the discovery inputs: runtime UID, the
// placement and the resolve request annotation (CR-11). A change of
// configuration or overrides therefore reuses the snapshot.
func resSnapshotJob(cr *aicrv1alpha1.ClusterRuntime) string {
	pl, _ := yaml.Marshal(cr.Spec.Placement)
	return resJobName("snapshot", string(cr.UID), string(pl), cr.Annotations[aicrv1alpha1.AnnotationResolveRequestedAt])
}

// resRecipeJob names the recipe Job of the snapshot Job snapName and the
// runtime's AICRConfig document config.
func resRecipeJob(cr *aicrv1alpha1.ClusterRuntime, snapName string, config []byte) string {
	return resJobName("recipe", string(cr.UID), snapName, string(config))
}

// resBundleJob names the bundle Job rendering the result of the recipe Job
// recipeName with the render flags args; a plan records it in its
// resolved-by label and the flags in its renderFlags.
func resBundleJob(runtimeUID, recipeName string, args []string) string {
	return resJobName("bundle", runtimeUID, recipeName, fmt.Sprint(args))
}

// aicrConfig is AICR's v1 AICRConfig document (AICR-CLI.md section 6):
// criteria, profile and configuration of the recipe.
func resAICRConfig(cr *aicrv1alpha1.ClusterRuntime) ([]byte, error) {
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

// bundleArgs are the render flags of aicr bundle: placement selectors and
// tolerations, then one --set-json per override (AICR-CLI.md section 7).
func resBundleArgs(cr *aicrv1alpha1.ClusterRuntime) []string {
	var args []string
	for _, g := range []struct {
		name  string
		group aicrv1alpha1.NodeGroup
	}{{"system", cr.Spec.Placement.System}, {"accelerated", cr.Spec.Placement.Accelerated}} {
		for _, k := range resSortedKeys(g.group.NodeSelector) {
			args = append(args, "--"+g.name+"-node-selector", k+"="+string(g.group.NodeSelector[k]))
		}
		for _, t := range g.group.Tolerations {
			args = append(args, "--"+g.name+"-node-toleration", resToleration(t))
		}
	}
	for _, o := range cr.Spec.Overrides {
		args = append(args, "--set-json", o.Component+":"+o.Path+"="+string(o.Value.Raw))
	}
	return args
}

// toleration formats key=value:Effect (operator Equal) or key:Effect (Exists).
func resToleration(t aicrv1alpha1.Toleration) string {
	s := t.Key
	if t.Operator != "Exists" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

func resPlacement(pl aicrv1alpha1.Placement) domain.Placement {
	conv := func(m map[string]aicrv1alpha1.LabelValue) domain.NodeSelector {
		out := domain.NodeSelector{}
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}
	return domain.Placement{System: conv(pl.System.NodeSelector), Accelerated: conv(pl.Accelerated.NodeSelector)}
}

func resTolerations(pl aicrv1alpha1.Placement) map[string][]domain.Toleration {
	conv := func(ts []aicrv1alpha1.Toleration) []domain.Toleration {
		out := make([]domain.Toleration, 0, len(ts))
		for _, t := range ts {
			out = append(out, domain.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
		}
		return out
	}
	return map[string][]domain.Toleration{"system": conv(pl.System.Tolerations), "accelerated": conv(pl.Accelerated.Tolerations)}
}

func resOverrides(os []aicrv1alpha1.Override) ([]domain.Override, error) {
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

func resCriteria(cr *aicrv1alpha1.ClusterRuntime) map[string]string {
	out := map[string]string{}
	for k, v := range cr.Spec.Criteria {
		out[k] = string(v)
	}
	return out
}

func resSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func resTruncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
