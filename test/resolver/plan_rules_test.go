package resolver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// storedPlan is a plan in the way of the resolver: the plan of want written through the plan
// store for uid with source, then tampered with so that it claims the digest annotation,
// schema label and payload digest given ("": as written).
type storedPlan struct {
	annotation, schema, payloadDigest, uid string
	source                                 domain.PlanSource
}

func createStoredPlan(t *testing.T, want *domain.Plan, p storedPlan) *corev1.ConfigMap {
	t.Helper()
	plan := *want
	plan.RuntimeUID, plan.Source = p.uid, p.source
	store := planstoretest.Store{Client: k8s, Namespace: operatorNS}
	store.Write(t, planstoretest.Plan{Plan: &plan})
	if p.payloadDigest != "" {
		store.EditPlan(t, want.Digest, func(doc *configdoc.Plan) { doc.Digest = p.payloadDigest })
	}
	if p.annotation != "" || p.schema != "" {
		name, err := configdoc.PlanConfigMapName(want.Digest)
		require.NoError(t, err)
		store.Tamper(t, name, func(cm *corev1.ConfigMap) {
			if p.annotation != "" {
				cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] = p.annotation
			}
			if p.schema != "" {
				cm.Labels[aicrv1alpha1.LabelSchemaVersion] = p.schema
			}
		})
	}
	return planConfigMap(t, want.Digest)
}

// TestPlanRules_Conflicts covers PLAN-5 and PLAN-6 for plans in the way
// before the runtime resolves: another digest is a Conflict, a hand-edited
// plan is PlanUnreadable, a plan of another runtime UID is replaced.
func TestPlanRules_Conflicts(t *testing.T) {
	wanted := wantPlan(t, v1Synthetic)
	want := wanted.Digest
	other := want[:len("sha256:")+16] + strings.Repeat("0", 48)
	for _, tc := range []struct {
		name   string
		plan   storedPlan
		reason string
	}{
		{"MismatchingDigestIsConflict", storedPlan{other, "", other, "uid-x", domain.SourceResolved}, string(domain.StallConflict)},
		{"EditedSchemaLabelIsUnreadable", storedPlan{"", "1", "", "uid-x", domain.SourceResolved}, string(domain.StallPlanUnreadable)},
		{"EditedPayloadDigestIsUnreadable", storedPlan{"", "", other, "uid-x", domain.SourceResolved}, string(domain.StallPlanUnreadable)},
		{"AnotherRuntimeIsReplaced", storedPlan{"", "", "", "uid-of-an-earlier-runtime", domain.SourceResolved}, domain.ReasonResolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
			old := createStoredPlan(t, wanted, tc.plan)
			cr := createRuntime(t, runtimeSpec())
			cond, _ := resolved(t, tc.reason)
			live := planConfigMap(t, want)
			if tc.reason != domain.ReasonResolved {
				assert.Equal(t, metav1.ConditionFalse, cond.Status)
				assert.Equal(t, old.UID, live.UID, "the plan in the way is left alone")
				return
			}
			assert.NotEqual(t, old.UID, live.UID, "replaced")
			assert.Equal(t, string(cr.UID), plantrust.Stored(live).RuntimeUID)
		})
	}
}

// TestPlanRules_SameRuntime covers PLAN-5 for a plan of this runtime found on
// create: the same resolved plan is success and kept, a rebuilt plan of the
// digest is replaced by the resolved one.
func TestPlanRules_SameRuntime(t *testing.T) {
	wanted := wantPlan(t, v1Synthetic)
	want := wanted.Digest
	for _, tc := range []struct {
		source  domain.PlanSource
		replace bool
	}{{domain.SourceResolved, false}, {domain.SourceRebuilt, true}} {
		t.Run(string(tc.source), func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			h := start(t, options{version: "1.1.0", allowed: allowed, behavior: holding(f, ports.JobBundle)})
			cr := createRuntime(t, runtimeSpec())
			resolvedWith(t, domain.ReasonResolving, "aicr-bundle-")
			old := createStoredPlan(t, wanted, storedPlan{"", "", "", string(cr.UID), tc.source})
			h.SetBehavior(f.Behavior())
			resolved(t, domain.ReasonResolved)
			live := planConfigMap(t, want)
			assert.Equal(t, tc.replace, old.UID != live.UID)
			assert.Equal(t, domain.SourceResolved, plantrust.Stored(live).Source)
		})
	}
}

// TestPlanRules_ContentTooLarge: a plan over 1 MiB stalls and nothing is written (PLAN-3).
func TestPlanRules_ContentTooLarge(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, func(files map[string][]byte) {
		files["009-gpu-operator/cluster-values.yaml"] = []byte("padding: " + strings.Repeat("y", 1100<<10) + "\n")
	})
	start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	cr := createRuntime(t, runtimeSpec())
	cond, live := resolved(t, string(domain.StallContentTooLarge))
	assert.Contains(t, cond.Message, "a ConfigMap holds at most 1048576")
	assert.Empty(t, live.Status.CandidatePlanDigest)
	for _, role := range []string{aicrv1alpha1.RolePlan, aicrv1alpha1.RoleValues} {
		list := &corev1.ConfigMapList{}
		require.NoError(t, k8s.List(context.Background(), list, client.InNamespace(operatorNS),
			client.MatchingLabels{aicrv1alpha1.LabelRole: role, aicrv1alpha1.LabelRuntimeUID: string(cr.UID)}))
		assert.Empty(t, list.Items, role)
	}
}

// TestPlanRules_PLAN3_PLAN5_ValuesCreatedOnce: a values ConfigMap that already holds the
// plan's values (another plan with equal values wrote it) is shared; one holding other values
// under the plan's values ConfigMap name is a Conflict and the plan is not written.
func TestPlanRules_PLAN3_PLAN5_ValuesCreatedOnce(t *testing.T) {
	want := wantPlan(t, v1Synthetic)
	values, _, err := configdoc.EncodeValues(want)
	require.NoError(t, err)
	altered := map[string]string{}
	for k, v := range values.Data {
		altered[k] = v
	}
	altered[want.Releases[0].ID] = `{"altered":true}`
	for _, tc := range []struct {
		name   string
		data   map[string]string
		reason string
	}{
		{"SameValuesAreShared", values.Data, domain.ReasonResolved},
		{"OtherValuesAreAConflict", altered, string(domain.StallConflict)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
			require.NoError(t, k8s.Create(context.Background(), &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: values.Name, Namespace: operatorNS,
					Labels:      map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleValues},
					Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: "sha256:" + strings.Repeat("0", 64)}},
				Immutable: ptr.To(true), Data: tc.data,
			}))
			cr := createRuntime(t, runtimeSpec())
			cond, live := resolved(t, tc.reason)
			name, err := configdoc.PlanConfigMapName(want.Digest)
			require.NoError(t, err)
			plan := &corev1.ConfigMap{}
			err = k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, plan)
			if tc.reason == domain.ReasonResolved {
				require.NoError(t, err)
				assert.Nil(t, domain.CheckPlanReadable(plantrust.Stored(plan), string(cr.UID)))
				stored, decodeErr := configdoc.DecodePlan([]byte(plan.Data[configdoc.PlanKey]))
				require.NoError(t, decodeErr)
				require.NotEmpty(t, stored.ValuesRefs)
				assert.Equal(t, values.Name, stored.ValuesRefs[0].Name)
				return
			}
			assert.Equal(t, "values ConfigMap "+values.Name+" exists with other content than plan "+want.Digest+" records", cond.Message)
			assert.Empty(t, live.Status.CandidatePlanDigest)
			assert.True(t, apierrors.IsNotFound(err), "the plan is not written")
		})
	}
}

// TestPlanRules_LostPlanResolvedAgain: a deleted plan ConfigMap is written
// again from a new bundle Job (PLAN-7).
func TestPlanRules_LostPlanResolvedAgain(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	createRuntime(t, runtimeSpec())
	want := wantDigest(t, v1Synthetic)
	resolved(t, domain.ReasonResolved)
	assertJobsGone(t)
	lost := planConfigMap(t, want)
	require.NoError(t, k8s.Delete(context.Background(), lost))
	require.Eventually(t, func() bool {
		cm := &corev1.ConfigMap{}
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(lost), cm)
		return err == nil && cm.UID != lost.UID
	}, wait, tick)
	assert.Equal(t, 2, countJobs(h, "bundle"))
	assert.Equal(t, 1, countJobs(h, "snapshot"))
}
