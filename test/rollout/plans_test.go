package rollout_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
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

// writePlan stores p as the resolver does (PLAN-1, PLAN-2, PLAN-3), through the plan store: its
// resolved and validation recipes and its values, then the plan document naming them and the
// rendered bundle. It returns the digest.
func (h *harness) writePlan(p *domain.Plan) string { return h.writePlanDoc(p, nil) }

// writePlanDoc is writePlan with edit applied to the stored plan document afterwards (nil: none).
func (h *harness) writePlanDoc(p *domain.Plan, edit func(doc *configdoc.Plan)) string {
	h.t.Helper()
	h.plans().Write(h.t, planstoretest.Plan{Plan: p, Recipe: []byte(recipe(p.Digest, "resolved")),
		ValidationRecipe: []byte(recipe(p.Digest, "validation")), BundleRef: bundleRef(p.Digest)})
	if edit != nil {
		h.plans().EditPlan(h.t, p.Digest, edit)
	}
	return p.Digest
}

// writePlanSchema1 stores p as an operator of plan schema 1 did: its values inline in the plan
// document, no validation recipe. It returns the digest.
func (h *harness) writePlanSchema1(p *domain.Plan) string {
	h.t.Helper()
	h.plans().Write(h.t, planstoretest.Plan{Plan: p, Recipe: []byte(recipe(p.Digest, "resolved")), BundleRef: bundleRef(p.Digest)})
	h.plans().AsSchema1(h.t, p)
	return p.Digest
}

// plans is the operator namespace's plan store.
func (h *harness) plans() planstoretest.Store {
	return planstoretest.Store{Client: k8s, Namespace: operatorNamespace}
}

// recipe is the recipe document of a plan; which tells its resolved and validation recipes apart.
func recipe(planDigest, which string) string {
	return fmt.Sprintf(`{"apiVersion":"aicr.run/v1","kind":"RecipeResult","metadata":{"plan":%q,"recipe":%q}}`, planDigest, which)
}

// bundleRef is the reference of a plan's rendered bundle in the runtime registry.
func bundleRef(planDigest string) string {
	return "registry.example.com/bundles/cluster@" + string(bundleDigest(planDigest))
}

// bundleDigest is the digest of a plan's rendered bundle in the runtime registry.
func bundleDigest(planDigest string) ports.Digest {
	sum := sha256.Sum256([]byte("bundle of " + planDigest))
	return ports.Digest("sha256:" + hex.EncodeToString(sum[:]))
}
