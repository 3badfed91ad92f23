// Package planstoretest writes plans for the tests as the operator does, through
// planstore.Writer, and tampers with them afterwards: a test that needs a forged plan writes the
// real one first and then alters what it stored, so every plan a test reads has the names,
// labels and layout the operator gives it.
package planstoretest

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// Store writes plans into Namespace (the operator namespace) of the API server Client talks to.
type Store struct {
	Client    client.Client
	Namespace string
	// Sealer seals the plans as the operator does; nil uses sealtest.New(), the key the suites'
	// operators seal with.
	Sealer ports.Sealer
}

// Plan is a plan to write and what it references, as planstore.Write has them; Image is the
// AICR image the plan records.
type Plan struct {
	Plan             *domain.Plan
	Recipe           []byte
	ValidationRecipe []byte
	RenderFlags      []string
	BundleRef        string
	BundleJob        string
	Image            string
}

// Write writes p through planstore.Writer, for the runtime p.Plan records, and returns the plan
// document as stored (without values).
func (s Store) Write(t testing.TB, p Plan) *configdoc.Plan {
	t.Helper()
	writer := &planstore.Writer{Client: s.Client, Reader: s.Client, Recorder: &record.FakeRecorder{},
		Namespace: s.Namespace, Image: p.Image, Sealer: s.seals()}
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName,
		UID: types.UID(p.Plan.RuntimeUID)}}
	stall, err := writer.Write(context.Background(), cr, planstore.Write{Plan: p.Plan, Recipe: p.Recipe,
		ValidationRecipe: p.ValidationRecipe, BundleJob: p.BundleJob, RenderFlags: p.RenderFlags, BundleRef: p.BundleRef})
	require.NoError(t, err)
	require.Nil(t, stall, "the plan store writes the plan")
	return s.Document(t, p.Plan.Digest)
}

// Document returns the plan document stored for digest, as it is stored (not checked).
func (s Store) Document(t testing.TB, digest string) *configdoc.Plan {
	t.Helper()
	cm := s.planConfigMap(t, digest)
	doc, err := configdoc.DecodePlan([]byte(cm.Data[configdoc.PlanKey]))
	require.NoError(t, err)
	return doc
}

// Tamper replaces the stored ConfigMap name with a copy edit altered. The operator's ConfigMaps
// are immutable, so the original is deleted and the altered copy created in its place. A plan
// ConfigMap is sealed again as the operator seals one (planstore.SealPlan), so a reader refuses
// the alteration by the unkeyed check it is about, or reads it as an older operator's plan.
func (s Store) Tamper(t testing.TB, name string, edit func(cm *corev1.ConfigMap)) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	require.NoError(t, s.Client.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, cm))
	require.NoError(t, s.Client.Delete(ctx, cm))
	altered := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace, Labels: cm.Labels, Annotations: cm.Annotations},
		Immutable:  cm.Immutable, Data: cm.Data, BinaryData: cm.BinaryData,
	}
	edit(altered)
	require.NoError(t, s.Client.Create(ctx, altered))
	if altered.Labels[aicrv1alpha1.LabelRole] == aicrv1alpha1.RolePlan {
		planstore.SealPlan(s.seals(), altered)
		require.NoError(t, s.Client.Update(ctx, altered))
	}
}

// seals is the Sealer the store seals plans with.
func (s Store) seals() ports.Sealer {
	if s.Sealer == nil {
		return sealtest.New()
	}
	return s.Sealer
}

// EditPlan tampers with the stored plan document of digest: edit alters the document, which is
// stored again in the layout of plan schema 2.
func (s Store) EditPlan(t testing.TB, digest string, edit func(doc *configdoc.Plan)) {
	t.Helper()
	doc := s.Document(t, digest)
	edit(doc)
	raw, err := configdoc.EncodePlan(doc)
	require.NoError(t, err)
	s.Tamper(t, s.planName(t, digest), func(cm *corev1.ConfigMap) { cm.Data[configdoc.PlanKey] = string(raw) })
}

// AsSchema1 rewrites the stored plan of p as an operator of plan schema 1 stored it: the
// releases with their values inline in the plan document, schema-version label 1, no values
// reference.
func (s Store) AsSchema1(t testing.TB, p *domain.Plan) {
	t.Helper()
	doc := s.Document(t, p.Digest)
	doc.SchemaVersion, doc.Releases, doc.ValuesRefs = 1, p.Releases, nil
	raw, err := json.Marshal(doc) // the schema 1 layout: domain.Release with its values
	require.NoError(t, err)
	require.Contains(t, string(raw), `"values":{`, "the values are inline")
	s.Tamper(t, s.planName(t, p.Digest), func(cm *corev1.ConfigMap) {
		cm.Labels[aicrv1alpha1.LabelSchemaVersion] = strconv.Itoa(1)
		cm.Data[configdoc.PlanKey] = string(raw)
	})
}

// AlterValues tampers with the values ConfigMap of the stored plan of digest: edit alters its
// data (one key per release ID).
func (s Store) AlterValues(t testing.TB, digest string, edit func(data map[string]string)) {
	t.Helper()
	doc := s.Document(t, digest)
	require.NotEmpty(t, doc.ValuesRefs, "the plan has a values ConfigMap")
	s.Tamper(t, doc.ValuesRefs[0].Name, func(cm *corev1.ConfigMap) { edit(cm.Data) })
}

func (s Store) planName(t testing.TB, digest string) string {
	t.Helper()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	return name
}

func (s Store) planConfigMap(t testing.TB, digest string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	require.NoError(t, s.Client.Get(context.Background(), client.ObjectKey{Namespace: s.Namespace, Name: s.planName(t, digest)}, cm))
	return cm
}
