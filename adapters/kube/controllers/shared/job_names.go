package shared

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
)

// The names of the resolver's AICR Jobs and kept results, and the inputs that determine them:
// the resolver starts the Jobs under these names, retention keeps the results a retained plan
// was resolved from under the same names.

// JobName derives a Job name from its kind and a hash of everything that
// determines its result, so Start is idempotent and a changed input starts a
// new Job (and an unchanged one reuses the kept result).
func JobName(kind string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		_, _ = fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return "aicr-" + kind + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Release is the AICR release a resolution runs: its version and its image, pinned by digest.
// Every Job name and kept result of a resolution is keyed by it, so a change of release (a new
// aicr.version or image digest) reuses no snapshot, recipe, assessment or plan of the old one.
type Release struct {
	Version string
	Image   string
}

// key is the release as one name part.
func (r Release) key() string { return r.Version + "@" + r.Image }

// SnapshotJob keys the snapshot by the AICR release and the discovery inputs: runtime UID, the
// placement and the resolve request annotation (CR-11). A change of configuration or overrides
// therefore reuses the snapshot; a change of release does not.
func SnapshotJob(cr *aicrv1alpha1.ClusterRuntime, rel Release) string {
	pl, _ := yaml.Marshal(cr.Spec.Placement)
	return JobName("snapshot", string(cr.UID), rel.key(), string(pl), cr.Annotations[aicrv1alpha1.AnnotationResolveRequestedAt])
}

// RecipeJob names the recipe Job of the snapshot Job snapName and the runtime's AICRConfig
// document config under the release rel; inheritFrom is the digest of the active plan whose
// recipe the Job inherits from (InheritFrom, "" for none).
func RecipeJob(cr *aicrv1alpha1.ClusterRuntime, rel Release, snapName string, config []byte, inheritFrom string) string {
	return JobName("recipe", string(cr.UID), rel.key(), snapName, string(config), inheritFrom)
}

// UpgradeCheckJob names the upgrade-check Job from the active plan activeDigest to recipe under
// the release rel.
func UpgradeCheckJob(cr *aicrv1alpha1.ClusterRuntime, rel Release, activeDigest string, recipe []byte) string {
	return JobName("upgrade-check", string(cr.UID), rel.key(), activeDigest, string(recipe))
}

// InheritFrom returns the digest of the active plan the recipe inherits from (recipe
// --inherit-from, docs/design/aicr-cli.md section 6): the active plan activeDigest when another AICR
// release rendered it and it records its recipe; "" when there is nothing to inherit (no active
// plan, a plan of this release, a rebuilt plan without recipe or AICR image).
func InheritFrom(active *configdoc.Plan, activeDigest string, rel Release) string {
	if active == nil || activeDigest == "" || active.ConfigMapRef == nil || active.AICRImage == "" || active.AICRImage == rel.Image {
		return ""
	}
	return activeDigest
}

// BundleJob names the bundle Job rendering the result of the recipe Job
// recipeName with the render flags args; a plan records it in its
// resolved-by label and the flags in its renderFlags. The recipe Job's name carries the
// release, so the bundle Job's does too.
func BundleJob(runtimeUID, recipeName string, args []string) string {
	return JobName("bundle", runtimeUID, recipeName, fmt.Sprint(args))
}

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
		for _, k := range SortedKeys(g.group.NodeSelector) {
			args = append(args, "--"+g.name+"-node-selector", k+"="+string(g.group.NodeSelector[k]))
		}
		for _, t := range g.group.Tolerations {
			for _, flag := range Toleration(t) {
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

// Toleration formats t in AICR's toleration grammar, whose values split on ':' into exactly a
// key part and an effect: `*` for an empty key with operator Exists and no effect (every
// taint), key=value:Effect (operator Equal) or key:Effect (Exists). AICR has no form for a
// key of any effect, so an empty effect becomes one value per effect, which tolerates the same
// taints. An empty key with an effect and tolerationSeconds have no form at all:
// domain.CheckTolerations refuses them before a bundle Job runs.
func Toleration(t aicrv1alpha1.Toleration) []string {
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

// SortedKeys returns the keys of m in order, so flags and names derived from a map are stable.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
