package chart_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// waitRBAC and tickRBAC bound how long a grant the test creates takes to reach the authorizer.
const (
	waitRBAC = 30 * time.Second
	tickRBAC = 50 * time.Millisecond
)

// TestRenderMetricsRBAC: with secure metrics (the default) the operator may create
// TokenReviews and SubjectAccessReviews to check scrapers, and scrapers get the
// aicr-operator-metrics-reader role to bind; with operator.metricsSecure false the operator
// loses that grant and serves plain HTTP (OPS-2).
func TestRenderMetricsRBAC(t *testing.T) {
	t.Parallel()
	args := func(objs []*unstructured.Unstructured) []string {
		d := find(objs, "Deployment", releaseNamespace, "aicr-operator")
		require.NotNil(t, d)
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		require.Len(t, containers, 1)
		c, _ := containers[0].(map[string]any)
		a, _, _ := unstructured.NestedStringSlice(c, "args")
		return a
	}
	objs, err := render(requiredValues())
	require.NoError(t, err)
	auth := find(objs, "ClusterRole", "", "aicr-operator-metrics-auth")
	require.NotNil(t, auth, "OPS-2 the operator may check scrapers")
	rules, _, _ := unstructured.NestedSlice(auth.Object, "rules")
	assert.Equal(t, []any{
		rbacRule("authentication.k8s.io", "tokenreviews", []string{"create"}),
		rbacRule("authorization.k8s.io", "subjectaccessreviews", []string{"create"}),
	}, rules, "OPS-2 CH-4 exactly the reviews, nothing else")
	binding := find(objs, "ClusterRoleBinding", "", "aicr-operator-metrics-auth")
	require.NotNil(t, binding)
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	assert.Equal(t, []any{map[string]any{"kind": "ServiceAccount", "name": "aicr-operator", "namespace": releaseNamespace}}, subjects)
	reader := find(objs, "ClusterRole", "", "aicr-operator-metrics-reader")
	require.NotNil(t, reader, "OPS-2 a role for scrapers")
	rules, _, _ = unstructured.NestedSlice(reader.Object, "rules")
	assert.Equal(t, []any{map[string]any{"nonResourceURLs": []any{"/metrics"}, "verbs": []any{"get"}}}, rules)
	assert.Contains(t, args(objs), "--metrics-secure=true")

	objs, err = render(withValues(map[string]any{"operator.metricsSecure": false}))
	require.NoError(t, err)
	assert.Nil(t, find(objs, "ClusterRole", "", "aicr-operator-metrics-auth"), "OPS-2 CH-4 no review grant without secure metrics")
	assert.Nil(t, find(objs, "ClusterRoleBinding", "", "aicr-operator-metrics-auth"))
	assert.Contains(t, args(objs), "--metrics-secure=false")
}

// TestMetricsRBACOnTheAPIServer asks the API server's authorizer about the grants the chart
// installed: the operator may create the reviews its metrics endpoint sends, an identity bound
// to aicr-operator-metrics-reader may get /metrics, and one without it may not (OPS-2).
func TestMetricsRBACOnTheAPIServer(t *testing.T) {
	t.Parallel()
	needEnv(t)
	ctx := context.Background()
	const scraper, stranger = "metrics-scraper", "metrics-stranger"
	crbGVR := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
	crb := object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "test-metrics-scraper", nil)
	crb.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "aicr-operator-metrics-reader"}
	crb.Object["subjects"] = []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": scraper}}
	_, err := admin().dyn.Resource(crbGVR).Create(ctx, crb, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { deleteAndWait(t, admin().dyn.Resource(crbGVR), crb.GetName()) })

	allowed := func(spec map[string]any) bool {
		sar := object("authorization.k8s.io/v1", "SubjectAccessReview", "", "", nil)
		sar.Object["spec"] = spec
		out, err := admin().dyn.Resource(sarGVR).Create(ctx, sar, metav1.CreateOptions{})
		require.NoError(t, err)
		ok, _, _ := unstructured.NestedBool(out.Object, "status", "allowed")
		return ok
	}
	metrics := map[string]any{"path": "/metrics", "verb": "get"}
	cases := []struct {
		name string
		spec map[string]any
		want bool
	}{
		{"OPS-2 the operator may create TokenReviews", map[string]any{"user": operatorUser, "groups": toAny(operatorGroups),
			"resourceAttributes": map[string]any{"group": "authentication.k8s.io", "resource": "tokenreviews", "verb": "create"}}, true},
		{"OPS-2 the operator may create SubjectAccessReviews", map[string]any{"user": operatorUser, "groups": toAny(operatorGroups),
			"resourceAttributes": map[string]any{"group": "authorization.k8s.io", "resource": "subjectaccessreviews", "verb": "create"}}, true},
		{"OPS-2 a metrics reader may get /metrics", map[string]any{"user": scraper, "nonResourceAttributes": metrics}, true},
		{"OPS-2 anyone else may not get /metrics", map[string]any{"user": stranger, "groups": []any{"system:authenticated"},
			"nonResourceAttributes": metrics}, false},
		{"OPS-2 anonymous may not get /metrics", map[string]any{"user": "system:anonymous", "groups": []any{"system:unauthenticated"},
			"nonResourceAttributes": metrics}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want {
				require.Eventually(t, func() bool { return allowed(c.spec) }, waitRBAC, tickRBAC, "%v", c.spec)
				return
			}
			assert.False(t, allowed(c.spec), "%v", c.spec)
		})
	}
}
