package shared

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
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
