package rollout_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/adapters/aicr"
	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/adapters/kube/planstore"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

const fixtures = "../testdata/aicr"

// Fixture bundles (v1 layout): an install, and the two sides of an upgrade.
var (
	fixtureInstall     = filepath.Join(fixtures, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow", "bundle-helm")
	fixtureUpgradeFrom = filepath.Join(fixtures, "upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow", "v1-synthetic", "bundle-helm")
	fixtureUpgradeTo   = filepath.Join(fixtures, "upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow", "v1-synthetic", "bundle-helm")
)

// draDriver is the fixtures' DRA driver release: after the GPU Operator's upgrade its step waits
// for an acknowledgement of its kubelet plugin's restart.
const draDriver = "nvidia-dra-driver-gpu"

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// fixturePlan builds the plan of a fixture bundle for runtimeUID.
func (h *harness) fixturePlan(dir, runtimeUID string) *domain.Plan {
	h.t.Helper()
	b, err := aicr.ReadDir(dir)
	require.NoError(h.t, err)
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: runtimeUID, Source: domain.SourceResolved, Bundle: b})
	require.NoError(h.t, err)
	p.HasRecipe = true
	for i := range p.Releases { // pinned as the resolver pins them into the runtime registry
		sum := sha256.Sum256([]byte(p.Releases[i].ID + p.Releases[i].Chart.Version))
		p.Releases[i].Chart.ManifestDigest = "sha256:" + hex.EncodeToString(sum[:])
	}
	p.Digest, err = domain.DesiredStateDigest(p.Releases)
	require.NoError(h.t, err)
	return p
}

// writePlan stores p as the resolver would (PLAN-1, PLAN-2, PLAN-3): its resolved and
// validation recipes and its values, then the plan document naming them and the rendered
// bundle. It returns the digest.
func (h *harness) writePlan(p *domain.Plan) string { return h.writePlanDoc(p, nil) }

// writePlanDoc is writePlan with edit applied to the plan document before it is stored.
func (h *harness) writePlanDoc(p *domain.Plan, edit func(doc *configdoc.Plan)) string {
	h.t.Helper()
	doc := &configdoc.Plan{
		Plan: *p, RenderFlags: []string{}, BundleRef: "registry.example.com/bundles/cluster@" + string(bundleDigest(p.Digest)),
		ConfigMapRef:           h.writeRecipe(recipe(p.Digest, "resolved")),
		ValidationConfigMapRef: h.writeRecipe(recipe(p.Digest, "validation")),
		ValuesRefs:             h.writeValues(p),
	}
	if edit != nil {
		edit(doc)
	}
	raw, err := configdoc.EncodePlan(doc)
	require.NoError(h.t, err)
	h.storePlan(p.Digest, strconv.Itoa(domain.PlanSchemaVersion), raw)
	return p.Digest
}

// writePlanSchema1 stores p as an operator of plan schema 1 did: its values inline in the plan
// document, without a values ConfigMap. It returns the digest.
func (h *harness) writePlanSchema1(p *domain.Plan) string {
	h.t.Helper()
	doc := &configdoc.Plan{
		Plan: *p, RenderFlags: []string{}, BundleRef: "registry.example.com/bundles/cluster@" + string(bundleDigest(p.Digest)),
		ConfigMapRef: h.writeRecipe(recipe(p.Digest, "resolved")),
	}
	doc.SchemaVersion = 1
	raw, err := json.Marshal(doc) // the schema 1 layout: domain.Release with its values
	require.NoError(h.t, err)
	require.Contains(h.t, string(raw), `"values":{`)
	h.storePlan(p.Digest, "1", raw)
	return p.Digest
}

// storePlan creates the plan ConfigMap of digest holding the plan document raw.
func (h *harness) storePlan(digest, schema string, raw []byte) {
	h.t.Helper()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(h.t, err)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: operatorNamespace,
			Labels: map[string]string{
				aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan, aicrv1alpha1.LabelSchemaVersion: schema,
				aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue,
			},
			Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: digest},
		},
		Immutable: ptr.To(true),
		Data:      map[string]string{configdoc.PlanKey: string(raw)},
	}
	require.NoError(h.t, k8s.Create(context.Background(), cm))
}

// writeValues stores the values ConfigMap of p as the resolver does (PLAN-3) and returns the
// references of its releases.
func (h *harness) writeValues(p *domain.Plan) []configdoc.ValuesRef {
	h.t.Helper()
	v, refs, err := configdoc.EncodeValues(p)
	require.NoError(h.t, err)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: v.Name, Namespace: operatorNamespace,
			Labels:      map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleValues, aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue},
			Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: p.Digest},
		},
		Immutable: ptr.To(true),
		Data:      v.Data,
	}
	require.NoError(h.t, client.IgnoreAlreadyExists(k8s.Create(context.Background(), cm)))
	return refs
}

// recipe is the recipe document of a plan; which tells its resolved and validation recipes apart.
func recipe(planDigest, which string) string {
	return fmt.Sprintf(`{"apiVersion":"aicr.run/v1","kind":"RecipeResult","metadata":{"plan":%q,"recipe":%q}}`, planDigest, which)
}

// writeRecipe stores a recipe document as the resolver does (PLAN-3) and returns its reference.
func (h *harness) writeRecipe(doc string) *configdoc.ConfigMapRef {
	h.t.Helper()
	ref := &configdoc.ConfigMapRef{Digest: configdoc.ContentDigest([]byte(doc))}
	ref.Name = planstore.RecipePrefix + strings.TrimPrefix(ref.Digest, "sha256:")[:16]
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: ref.Name, Namespace: operatorNamespace,
			Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleRecipe, aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue},
		},
		Immutable: ptr.To(true),
		Data:      map[string]string{configdoc.RecipeKey: doc},
	}
	require.NoError(h.t, client.IgnoreAlreadyExists(k8s.Create(context.Background(), cm)))
	return ref
}

// bundleDigest is the digest of a plan's rendered bundle in the runtime registry.
func bundleDigest(planDigest string) ports.Digest {
	sum := sha256.Sum256([]byte("bundle of " + planDigest))
	return ports.Digest("sha256:" + hex.EncodeToString(sum[:]))
}
