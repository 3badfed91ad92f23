package shared

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

const (
	testImage11 = "registry.example.com/aicr:v1.1.0@sha256:1111111111111111111111111111111111111111111111111111111111111111"
	testImage12 = "registry.example.com/aicr:v1.2.0@sha256:1212121212121212121212121212121212121212121212121212121212121212"
)

// TestJobNames_KeyedByRelease: every Job name of a resolution changes with the AICR release,
// its version or its image digest alone, and stays for the same release (RES-1).
func TestJobNames_KeyedByRelease(t *testing.T) {
	t.Parallel()
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{UID: "uid-1"}}
	base := Release{Version: "1.1.0", Image: testImage11}
	names := func(rel Release) []string {
		snap := SnapshotJob(cr, rel)
		recipe := RecipeJob(cr, rel, snap, []byte("config"), "")
		return []string{snap, recipe, BundleJob(string(cr.UID), recipe, nil), UpgradeCheckJob(cr, rel, "sha256:aa", []byte("recipe"))}
	}
	assert.Equal(t, names(base), names(base), "one release, one set of names")
	for _, tt := range []struct {
		name string
		rel  Release
	}{
		{"another version", Release{Version: "1.2.0", Image: testImage11}},
		{"another image digest", Release{Version: "1.1.0", Image: testImage11[:len(testImage11)-1] + "2"}},
		{"another release", Release{Version: "1.2.0", Image: testImage12}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, n := range names(tt.rel) {
				assert.NotEqual(t, names(base)[i], n, "nothing of the old release is reused")
			}
		})
	}
	assert.NotEqual(t, RecipeJob(cr, base, "snap", []byte("config"), ""), RecipeJob(cr, base, "snap", []byte("config"), "sha256:aa"),
		"a recipe that inherits is another Job")
}

// TestInheritFrom: the recipe inherits from the active plan only when another AICR release
// rendered it and it records its recipe.
func TestInheritFrom(t *testing.T) {
	t.Parallel()
	rel := Release{Version: "1.2.0", Image: testImage12}
	recipe := &configdoc.ConfigMapRef{Name: "aicr-recipe-0123456789abcdef", Digest: "sha256:bb"}
	for _, tt := range []struct {
		name   string
		doc    *configdoc.Plan
		active string
		want   string
	}{
		{"no active plan", nil, "", ""},
		{"a plan of another release", &configdoc.Plan{AICRImage: testImage11, ConfigMapRef: recipe}, "sha256:aa", "sha256:aa"},
		{"a plan of this release", &configdoc.Plan{AICRImage: testImage12, ConfigMapRef: recipe}, "sha256:aa", ""},
		{"a plan without recipe", &configdoc.Plan{AICRImage: testImage11}, "sha256:aa", ""},
		{"a rebuilt plan without image", &configdoc.Plan{ConfigMapRef: recipe}, "sha256:aa", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, InheritFrom(tt.doc, tt.active, rel))
		})
	}
}
