package plantrust_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

const runtimeUID = "uid-of-this-runtime"

// trustedPlan is a plan whose digest is that of its releases with their values, and the plan
// ConfigMap the operator writes for it (schema 2: the values are in a values ConfigMap).
func trustedPlan(t *testing.T) (*configdoc.Plan, *corev1.ConfigMap) {
	t.Helper()
	releases := []domain.Release{{ID: "gpu-operator", Namespace: "gpu-operator", Component: "gpu-operator",
		Values: map[string]any{"driver": map[string]any{"version": "580.82.07"}}}}
	var err error
	releases[0].ValuesDigest, err = domain.Digest(releases[0].Values)
	require.NoError(t, err)
	digest, err := domain.DesiredStateDigest(releases)
	require.NoError(t, err)
	doc := &configdoc.Plan{Plan: domain.Plan{SchemaVersion: domain.PlanSchemaVersion, Digest: digest,
		RuntimeUID: runtimeUID, Source: domain.SourceResolved, Releases: releases}}
	_, doc.ValuesRefs, err = configdoc.EncodeValues(&doc.Plan)
	require.NoError(t, err)
	raw, err := configdoc.EncodePlan(doc)
	require.NoError(t, err)
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	return doc, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan,
				aicrv1alpha1.LabelSchemaVersion: fmt.Sprint(domain.PlanSchemaVersion)},
			Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: digest}},
		Data: map[string]string{configdoc.PlanKey: string(raw)},
	}
}

// trust runs every check a reader of the plan of digest for runtimeUID runs, in its order, and
// returns the first refusal; the plan's digest is checked with the releases and values the
// reader loaded from the values ConfigMap.
func trust(cm *corev1.ConfigMap, digest, runtimeUID string, loaded []domain.Release) *plantrust.Refusal {
	doc, refusal := plantrust.Decode(cm)
	if refusal != nil {
		return refusal
	}
	if refusal = plantrust.Check(plantrust.Header(cm, doc), digest, runtimeUID); refusal != nil {
		return refusal
	}
	withValues := *doc
	withValues.Releases = loaded
	return plantrust.CheckDigest(&withValues)
}

// TestTrust_EachCheckRefusesItsForgery: a plan ConfigMap is trusted as written, and each
// claim altered on its own is refused by its check with the stall the operator records; no
// other check catches it first.
func TestTrust_EachCheckRefusesItsForgery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		forge  func(t *testing.T, doc *configdoc.Plan, cm *corev1.ConfigMap)
		asked  func(doc *configdoc.Plan) string
		failed plantrust.Failed
		reason domain.StallReason
	}{
		{name: "as written: trusted"},
		{name: "no plan role label", failed: plantrust.NotAPlan, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, _ *configdoc.Plan, cm *corev1.ConfigMap) {
				cm.Labels[aicrv1alpha1.LabelRole] = aicrv1alpha1.RoleValues
			}},
		{name: "no plan document", failed: plantrust.NotAPlan, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, _ *configdoc.Plan, cm *corev1.ConfigMap) { delete(cm.Data, configdoc.PlanKey) }},
		{name: "a document that does not decode", failed: plantrust.NotAPlan, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, _ *configdoc.Plan, cm *corev1.ConfigMap) { cm.Data[configdoc.PlanKey] = "{" }},
		{name: "read as another plan", failed: plantrust.OtherPlan, reason: domain.StallPlanUnreadable,
			asked: func(*configdoc.Plan) string { return "sha256:" + fmt.Sprintf("%064d", 7) }},
		{name: "schema label not the payload's", failed: plantrust.Schema, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, _ *configdoc.Plan, cm *corev1.ConfigMap) {
				cm.Labels[aicrv1alpha1.LabelSchemaVersion] = fmt.Sprint(domain.OldestPlanSchemaVersion)
			}},
		{name: "a schema this build does not read", failed: plantrust.Schema, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, _ *configdoc.Plan, cm *corev1.ConfigMap) {
				newer := fmt.Sprint(domain.PlanSchemaVersion + 1)
				cm.Labels[aicrv1alpha1.LabelSchemaVersion] = newer
				cm.Data[configdoc.PlanKey] = strings.Replace(cm.Data[configdoc.PlanKey],
					fmt.Sprintf(`"schemaVersion":%d`, domain.PlanSchemaVersion), `"schemaVersion":`+newer, 1)
			}},
		{name: "payload digest not the annotation", failed: plantrust.PayloadDigest, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, doc *configdoc.Plan, cm *corev1.ConfigMap) {
				cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] = "sha256:" + fmt.Sprintf("%064d", 9)
			},
			asked: func(*configdoc.Plan) string { return "sha256:" + fmt.Sprintf("%064d", 9) }},
		{name: "another runtime's plan", failed: plantrust.OtherRuntime, reason: domain.StallPlanOfAnotherRuntime,
			forge: func(t *testing.T, doc *configdoc.Plan, cm *corev1.ConfigMap) {
				doc.RuntimeUID = "uid-of-another-runtime"
				encode(t, doc, cm)
			}},
		{name: "values altered after the plan was resolved", failed: plantrust.Content, reason: domain.StallPlanUnreadable,
			forge: func(_ *testing.T, doc *configdoc.Plan, _ *corev1.ConfigMap) {
				doc.Releases[0].Values = map[string]any{"driver": map[string]any{"version": "1.0.0"}}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, cm := trustedPlan(t)
			asked := doc.Digest
			if tt.forge != nil {
				tt.forge(t, doc, cm)
			}
			if tt.asked != nil {
				asked = tt.asked(doc)
			}

			refusal := trust(cm, asked, runtimeUID, doc.Releases)

			if tt.failed == "" {
				assert.Nil(t, refusal)
				return
			}
			require.NotNil(t, refusal, "the forgery is refused")
			assert.Equal(t, tt.failed, refusal.Failed)
			assert.Equal(t, tt.reason, refusal.Stall.Reason())
		})
	}
}

// TestStored_ReadsTheClaimsOfAPlanConfigMap: Stored reads what Header reads of a decoded
// plan, and a payload that does not parse claims no schema, which Check refuses.
func TestStored_ReadsTheClaimsOfAPlanConfigMap(t *testing.T) {
	t.Parallel()
	doc, cm := trustedPlan(t)
	assert.Equal(t, plantrust.Header(cm, doc), plantrust.Stored(cm))
	assert.Nil(t, plantrust.Check(plantrust.Stored(cm), doc.Digest, runtimeUID))

	cm.Data[configdoc.PlanKey] = "not json"
	refusal := plantrust.Check(plantrust.Stored(cm), doc.Digest, runtimeUID)
	require.NotNil(t, refusal)
	assert.Equal(t, plantrust.Schema, refusal.Failed)
}

// encode stores doc as the plan document of cm.
func encode(t *testing.T, doc *configdoc.Plan, cm *corev1.ConfigMap) {
	t.Helper()
	raw, err := configdoc.EncodePlan(doc)
	require.NoError(t, err)
	cm.Data[configdoc.PlanKey] = string(raw)
}
