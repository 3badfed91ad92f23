package argocdcompat_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	upstream "github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/gitops-engine/pkg/health"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// The compatibility of the operator's Argo CD API types with Argo CD's own (v3.2.12), which
// stay a test-only dependency: the binary never links them.

// TestAPITypesMirrorUpstreamFields: every field of the operator's types exists upstream under
// the same Go name, with the same JSON tag (name and omitempty) and the same kind.
func TestAPITypesMirrorUpstreamFields(t *testing.T) {
	t.Parallel()
	pairs := []struct{ ours, theirs any }{
		{argov1.Application{}, upstream.Application{}},
		{argov1.ApplicationList{}, upstream.ApplicationList{}},
		{argov1.AppProject{}, upstream.AppProject{}},
		{argov1.AppProjectList{}, upstream.AppProjectList{}},
	}
	for _, p := range pairs {
		mirrors(t, reflect.TypeOf(p.ours).Name(), reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs))
	}
	assert.Equal(t, upstream.SchemeGroupVersion, argov1.SchemeGroupVersion)
	assert.Equal(t, upstream.ApplicationSchemaGroupVersionKind, argov1.ApplicationSchemaGroupVersionKind)
	assert.Equal(t, upstream.ResourcesFinalizerName, argov1.ResourcesFinalizerName)
	assert.Equal(t, string(upstream.ApplicationSourceTypeHelm), string(argov1.ApplicationSourceTypeHelm))
	assert.Equal(t, string(upstream.SyncStatusCodeSynced), string(argov1.SyncStatusCodeSynced))
	assert.Equal(t, string(upstream.SyncStatusCodeOutOfSync), string(argov1.SyncStatusCodeOutOfSync))
}

// mirrors compares ours with theirs field by field, descending into the operator's own types.
func mirrors(t *testing.T, path string, ours, theirs reflect.Type) {
	t.Helper()
	if !assert.Equal(t, theirs.Kind(), ours.Kind(), path) {
		return
	}
	if ours.Kind() == reflect.Pointer || ours.Kind() == reflect.Slice {
		mirrors(t, path+"[]", ours.Elem(), theirs.Elem())
		return
	}
	if ours.Kind() != reflect.Struct {
		return
	}
	if ours.PkgPath() != reflect.TypeFor[argov1.Application]().PkgPath() {
		assert.Equal(t, theirs, ours, path) // metav1 and runtime types are shared
		return
	}
	for i := range ours.NumField() {
		f := ours.Field(i)
		if f.Tag.Get("json") == "-" {
			continue // Unmodeled: kept for the engine, never a member
		}
		g, ok := theirs.FieldByName(f.Name)
		if !assert.True(t, ok, "%s.%s does not exist upstream", path, f.Name) {
			continue
		}
		assert.Equal(t, g.Tag.Get("json"), f.Tag.Get("json"), "%s.%s JSON tag", path, f.Name)
		mirrors(t, path+"."+f.Name, f.Type, g.Type)
	}
}

// TestOurJSONRoundTripsThroughUpstream: what the operator writes reads back unchanged
// through Argo CD's types.
func TestOurJSONRoundTripsThroughUpstream(t *testing.T) {
	t.Parallel()
	out := assertRoundTrip(t, ourApplication(), &upstream.Application{})
	assert.Contains(t, out, `"rdma":null`, "nulls inside valuesObject survive")
	assertRoundTrip(t, &argov1.AppProject{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "AppProject"},
		ObjectMeta: metav1.ObjectMeta{Name: "aicr", Namespace: "argocd", Labels: map[string]string{"team": "gpu"}},
	}, &upstream.AppProject{})
}

// TestUpstreamJSONRoundTripsThroughOurs: what Argo CD writes in the fields the operator
// models is read by the operator's types without loss, and the two builders agree.
func TestUpstreamJSONRoundTripsThroughOurs(t *testing.T) {
	t.Parallel()
	out := assertRoundTrip(t, upstreamApplication(), &argov1.Application{})
	ours, err := json.Marshal(ourApplication())
	require.NoError(t, err)
	assert.JSONEq(t, string(ours), out)
}

// assertRoundTrip marshals from, decodes it into via, marshals via, asserts both encodings
// are the same JSON, empty objects aside (a struct field is never omitted), and returns the
// second.
func assertRoundTrip(t *testing.T, from, via any) string {
	t.Helper()
	first, err := json.Marshal(from)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(first, via))
	second, err := json.Marshal(via)
	require.NoError(t, err)
	assert.Equal(t, semantic(t, first), semantic(t, second))
	return string(second)
}

// semantic decodes raw and drops empty objects at any depth.
func semantic(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	return pruned(v)
}

func pruned(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if s, isList := v.([]any); isList {
			for i := range s {
				s[i] = pruned(s[i])
			}
		}
		return v
	}
	for k, e := range m {
		m[k] = pruned(e)
		if sub, isMap := m[k].(map[string]any); isMap && len(sub) == 0 {
			delete(m, k)
		}
	}
	return m
}

const (
	compatRepo   = "oci://registry.example.com/aicr/charts/gpu-operator"
	compatDigest = "sha256:0f3c2b1a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"
	compatValues = `{"driver":{"enabled":true,"rdma":null},"tolerations":[{"operator":"Exists"}]}`
)

var compatTime = metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))

// ourApplication is an Application as the operator writes it, with a status as Argo CD
// reports it.
func ourApplication() *argov1.Application {
	enabled := false
	source := argov1.ApplicationSource{
		RepoURL: compatRepo, Path: ".", TargetRevision: compatDigest,
		Helm: &argov1.ApplicationSourceHelm{ReleaseName: "gpu-operator", Values: "rdma: null\n",
			ValuesObject: &runtime.RawExtension{Raw: []byte(compatValues)}},
	}
	dest := argov1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "gpu-operator"}
	return &argov1.Application{
		TypeMeta: metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Application"},
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-operator.gpu-operator", Namespace: "argocd",
			Labels:      map[string]string{"app.kubernetes.io/managed-by": "aicr-operator"},
			Annotations: map[string]string{"operator.aicr.run/plan-digest": "sha256:plan"},
			Finalizers:  []string{argov1.ResourcesFinalizerName}},
		Spec: argov1.ApplicationSpec{
			Source: &source, Destination: dest, Project: "aicr",
			SyncPolicy: &argov1.SyncPolicy{
				Automated:   &argov1.SyncPolicyAutomated{Prune: true, SelfHeal: true, Enabled: &enabled},
				SyncOptions: argov1.SyncOptions{"CreateNamespace=true", "ServerSideApply=true"},
			},
			Sources: []argov1.ApplicationSource{{RepoURL: "https://charts.example.com", Chart: "nfd", TargetRevision: "1.0.0"}},
		},
		Status: argov1.ApplicationStatus{
			Resources: []argov1.ResourceStatus{{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "gpu-operator",
				Name: "driver", Status: argov1.SyncStatusCodeSynced,
				Health: &argov1.HealthStatus{Status: "Degraded", Message: "CrashLoopBackOff"}}},
			Sync: argov1.SyncStatus{Status: argov1.SyncStatusCodeOutOfSync,
				ComparedTo: argov1.ComparedTo{Source: source, Destination: dest}, Revision: compatDigest},
			Health:       argov1.AppHealthStatus{Status: "Progressing"},
			Conditions:   []argov1.ApplicationCondition{{Type: "ComparisonError", Message: "timeout"}},
			ReconciledAt: &compatTime,
			OperationState: &argov1.OperationState{
				Operation: argov1.Operation{Sync: &argov1.SyncOperation{Revision: compatDigest}},
				Phase:     "Failed", Message: "one or more objects failed to apply",
				StartedAt: compatTime, FinishedAt: &compatTime,
			},
			SourceType: argov1.ApplicationSourceTypeHelm,
		},
		Operation: &argov1.Operation{Sync: &argov1.SyncOperation{Revision: compatDigest}},
	}
}

// upstreamApplication is ourApplication built with Argo CD's types: every field the
// operator models, and only those.
func upstreamApplication() *upstream.Application {
	enabled := false
	source := upstream.ApplicationSource{
		RepoURL: compatRepo, Path: ".", TargetRevision: compatDigest,
		Helm: &upstream.ApplicationSourceHelm{ReleaseName: "gpu-operator", Values: "rdma: null\n",
			ValuesObject: &runtime.RawExtension{Raw: []byte(compatValues)}},
	}
	dest := upstream.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "gpu-operator"}
	return &upstream.Application{
		TypeMeta: metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Application"},
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-operator.gpu-operator", Namespace: "argocd",
			Labels:      map[string]string{"app.kubernetes.io/managed-by": "aicr-operator"},
			Annotations: map[string]string{"operator.aicr.run/plan-digest": "sha256:plan"},
			Finalizers:  []string{upstream.ResourcesFinalizerName}},
		Spec: upstream.ApplicationSpec{
			Source: &source, Destination: dest, Project: "aicr",
			SyncPolicy: &upstream.SyncPolicy{
				Automated:   &upstream.SyncPolicyAutomated{Prune: true, SelfHeal: true, Enabled: &enabled},
				SyncOptions: upstream.SyncOptions{"CreateNamespace=true", "ServerSideApply=true"},
			},
			Sources: upstream.ApplicationSources{{RepoURL: "https://charts.example.com", Chart: "nfd", TargetRevision: "1.0.0"}},
		},
		Status: upstream.ApplicationStatus{
			Resources: []upstream.ResourceStatus{{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "gpu-operator",
				Name: "driver", Status: upstream.SyncStatusCodeSynced,
				Health: &upstream.HealthStatus{Status: health.HealthStatusDegraded, Message: "CrashLoopBackOff"}}},
			Sync: upstream.SyncStatus{Status: upstream.SyncStatusCodeOutOfSync,
				ComparedTo: upstream.ComparedTo{Source: source, Destination: dest}, Revision: compatDigest},
			Health:       upstream.AppHealthStatus{Status: health.HealthStatusProgressing},
			Conditions:   []upstream.ApplicationCondition{{Type: upstream.ApplicationConditionComparisonError, Message: "timeout"}},
			ReconciledAt: &compatTime,
			OperationState: &upstream.OperationState{
				Operation: upstream.Operation{Sync: &upstream.SyncOperation{Revision: compatDigest}},
				Phase:     synccommon.OperationFailed, Message: "one or more objects failed to apply",
				StartedAt: compatTime, FinishedAt: &compatTime,
			},
			SourceType: upstream.ApplicationSourceTypeHelm,
		},
		Operation: &upstream.Operation{Sync: &upstream.SyncOperation{Revision: compatDigest}},
	}
}
