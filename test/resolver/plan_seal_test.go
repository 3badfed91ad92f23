package resolver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestPlanRules_UnsealedPlanOfTheResolution: the plan of the current resolution without the
// operator's seal (written before plans were sealed, or the operator's own create whose seal it
// did not get to write) is not read, nor taken as the result of the bundle Job: the resolution
// renders again and, holding exactly that plan, seals it where it is.
func TestPlanRules_UnsealedPlanOfTheResolution(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	cr := createRuntime(t, runtimeSpec())
	_, live := resolved(t, domain.ReasonResolved)
	digest := live.Status.CandidatePlanDigest
	h.stopResolver()
	old := unseal(t, digest)
	refusedUnsealed(t, digest, string(cr.UID))

	h.runResolver(t)
	require.Eventually(t, func() bool { return planstore.SealedPlan(sealtest.New(), planConfigMap(t, digest)) }, wait, tick,
		"the resolution renders the plan again and seals the copy that holds it")
	assert.Equal(t, old.UID, planConfigMap(t, digest).UID, "sealed where it is")
}

// TestPlanRules_UnsealedOtherPlanIsReplaced: a plan of this runtime at the name of the plan the
// resolution writes, without the operator's seal and holding another document (another
// identity's copy claiming another AICR image rendered it), is replaced by the operator's sealed
// plan.
func TestPlanRules_UnsealedOtherPlanIsReplaced(t *testing.T) {
	wanted := wantPlan(t, v1Synthetic)
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: holding(f, ports.JobBundle)})
	cr := createRuntime(t, runtimeSpec())
	resolvedWith(t, domain.ReasonResolving, "aicr-bundle-")
	createStoredPlan(t, wanted, storedPlan{uid: string(cr.UID), source: domain.SourceResolved})
	planstoretest.Store{Client: k8s, Namespace: operatorNS}.EditPlan(t, wanted.Digest,
		func(doc *configdoc.Plan) { doc.AICRImage = forgedImage })
	old := unseal(t, wanted.Digest)
	refusedUnsealed(t, wanted.Digest, string(cr.UID))

	h.SetBehavior(f.Behavior())
	resolved(t, domain.ReasonResolved)
	live := planConfigMap(t, wanted.Digest)
	assert.NotEqual(t, old.UID, live.UID, "replaced")
	assert.True(t, planstore.SealedPlan(sealtest.New(), live), "the operator's plan, sealed")
	doc, err := configdoc.DecodePlan([]byte(live.Data[configdoc.PlanKey]))
	require.NoError(t, err)
	assert.NotEqual(t, forgedImage, doc.AICRImage)
}

// forgedImage is the AICR image a forged plan claims rendered it.
const forgedImage = "registry.example/attacker/aicr:v9"

// refusedUnsealed asserts that the operator's plan reader does not read the plan of digest for
// uid, because it is not sealed.
func refusedUnsealed(t *testing.T, digest, uid string) {
	t.Helper()
	_, stall, err := planstore.NewReader(k8s, operatorNS, sealtest.New()).Document(context.Background(), digest, uid)
	require.NoError(t, err)
	require.NotNil(t, stall, "an unsealed plan is not read")
	assert.Contains(t, stall.Message(), "not sealed by the operator's key")
}

// TestPlanReader_APlanFromBeforeTheKeyIsRead: an unsealed plan created before the operator's
// key was made (an operator that did not seal plans wrote it, or the key was rotated since) is
// read; the same plan under a key made before it is not.
func TestPlanReader_APlanFromBeforeTheKeyIsRead(t *testing.T) {
	wanted := wantPlan(t, v1Synthetic)
	createStoredPlan(t, wanted, storedPlan{uid: "uid-of-a-runtime", source: domain.SourceResolved})
	old := unseal(t, wanted.Digest)
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(k8s.Delete(context.Background(), old))) })
	key := make([]byte, sealer.KeySize)
	for name, madeAt := range map[string]time.Time{"after": old.CreationTimestamp.Add(time.Second), "before": old.CreationTimestamp.Add(-time.Second)} {
		seals, err := sealer.New(key, madeAt)
		require.NoError(t, err)
		doc, stall, err := planstore.NewReader(k8s, operatorNS, seals).Document(context.Background(), wanted.Digest, "uid-of-a-runtime")
		require.NoError(t, err)
		if name == "after" {
			assert.Nil(t, stall, "a plan older than the key is read")
			assert.Equal(t, wanted.Digest, doc.Digest)
			continue
		}
		require.NotNil(t, stall, "a plan created after the key must carry its seal")
		assert.Equal(t, domain.StallPlanUnreadable, stall.Reason())
	}
}

// unseal removes the operator's seal from the plan ConfigMap of digest, as a plan written before
// plans were sealed lacks it, and returns it.
func unseal(t *testing.T, digest string) *corev1.ConfigMap {
	t.Helper()
	cm := planConfigMap(t, digest)
	delete(cm.Annotations, aicrv1alpha1.AnnotationSeal)
	require.NoError(t, k8s.Update(context.Background(), cm))
	return cm
}
