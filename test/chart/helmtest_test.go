package chart_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const testImageDigest = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// testPod returns the helm test Pod rendered with values.
func testPod(t *testing.T, values map[string]any) (*unstructured.Unstructured, corev1.Pod) {
	t.Helper()
	for _, o := range renderHooks(t, values) {
		if o.GetKind() != "Pod" {
			continue
		}
		var pod corev1.Pod
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, &pod, true))
		return o, pod
	}
	t.Fatal("the chart renders a helm test Pod")
	return nil, corev1.Pod{}
}

// renderedNames returns the names of the rendered objects of kind.
func renderedNames(t *testing.T, objs []*unstructured.Unstructured, kind string) []string {
	t.Helper()
	var out []string
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o.GetName())
		}
	}
	return out
}

// TestHelmTestPodChecksWhatTheChartInstalls: the helm test Pod (templates/tests/test-ready.yaml,
// a helm.sh/hook: test) runs the tests.image pinned by digest and checks, with kubectl, that the
// CRDs are established, that every admission policy and binding the chart renders exists and
// that the operator Deployment is available, as a ServiceAccount that may only read those.
func TestHelmTestPodChecksWhatTheChartInstalls(t *testing.T) {
	t.Parallel()
	values := withValues(map[string]any{"tests.image": map[string]any{"repository": "mirror.example/kubectl", "digest": testImageDigest}})
	o, pod := testPod(t, values)
	assert.Equal(t, "test", o.GetAnnotations()["helm.sh/hook"])
	assert.Equal(t, corev1.RestartPolicyNever, pod.Spec.RestartPolicy)
	assert.Equal(t, "aicr-operator-test", pod.Spec.ServiceAccountName)
	objs, err := render(values)
	require.NoError(t, err)
	crds := renderedNames(t, objs, "CustomResourceDefinition")
	policies := renderedNames(t, objs, "ValidatingAdmissionPolicy")
	bindings := renderedNames(t, objs, "ValidatingAdmissionPolicyBinding")
	require.NotEmpty(t, policies)

	args := map[string][]string{}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		assert.Equal(t, "mirror.example/kubectl@"+testImageDigest, c.Image, "%s runs tests.image pinned by digest", c.Name)
		assert.Equal(t, []string{"kubectl"}, c.Command, c.Name)
		args[c.Name] = c.Args
	}
	wantCRDs := []string{"wait", "--for=condition=Established", "--timeout=60s"}
	for _, c := range crds {
		wantCRDs = append(wantCRDs, "crd/"+c)
	}
	assert.ElementsMatch(t, wantCRDs, args["crds-established"])
	assert.ElementsMatch(t, append([]string{"get", "validatingadmissionpolicies"}, policies...), args["admission-policies"])
	assert.ElementsMatch(t, append([]string{"get", "validatingadmissionpolicybindings"}, bindings...), args["admission-policy-bindings"])
	assert.Equal(t, []string{"wait", "--for=condition=Available", "--timeout=120s", "--namespace", releaseNamespace,
		"deployment/aicr-operator"}, args["operator-available"])
	require.Len(t, pod.Spec.Containers, 1, "the Deployment check runs last, after the init containers")

	for _, h := range renderHooks(t, values) {
		if h.GetKind() != "ClusterRole" && h.GetKind() != "Role" {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(h.Object, "rules")
		for _, r := range rules {
			rule, _ := r.(map[string]any)
			verbs, _, _ := unstructured.NestedStringSlice(rule, "verbs")
			assert.Subset(t, []string{"get", "list", "watch"}, verbs, "%s %s only reads", h.GetKind(), h.GetName())
			names, _, _ := unstructured.NestedStringSlice(rule, "resourceNames")
			assert.NotEmpty(t, names, "%s %s reads named objects only", h.GetKind(), h.GetName())
		}
	}
}

// TestHelmTestPodPassesTheAPIServer creates the helm test hooks on the control plane with a
// server-side dry run, the Pod in a namespace that enforces the restricted Pod Security level:
// the API server validates every object and admits the Pod as restricted. Nothing runs it.
func TestHelmTestPodPassesTheAPIServer(t *testing.T) {
	t.Parallel()
	needEnv(t)
	ctx := context.Background()
	const ns = "helm-test-dry-run"
	admin := dynamicFor(testEnv.Config)
	nsObj := object("v1", "Namespace", "", ns, map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	require.NoError(t, create(ctx, admin, nsObj))
	// No namespace controller runs here, so the namespace is not waited for after its delete.
	t.Cleanup(func() { _ = admin.Resource(namespaceGVR).Delete(ctx, ns, metav1.DeleteOptions{}) })
	m, err := restMapper()
	require.NoError(t, err)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	for _, o := range renderHooks(t, requiredValues()) {
		gvk := o.GroupVersionKind()
		mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err)
		ri := admin.Resource(mapping.Resource)
		if o.GetNamespace() == "" {
			_, err = ri.Create(ctx, o, dryRun)
			assert.NoError(t, err, "%s %s", o.GetKind(), o.GetName())
			continue
		}
		o.SetNamespace(ns)
		ri = admin.Resource(mapping.Resource)
		if o.GetKind() == "ServiceAccount" { // the Pod's ServiceAccount must exist for its admission
			_, err = ri.Namespace(ns).Create(ctx, o, metav1.CreateOptions{})
			require.NoError(t, err)
			continue
		}
		_, err = ri.Namespace(ns).Create(ctx, o, dryRun)
		assert.NoError(t, err, "%s %s", o.GetKind(), o.GetName())
		if o.GetKind() != "Pod" {
			continue
		}
		// The namespace does enforce restricted: the same Pod running as root is refused.
		root := o.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(root.Object, false, "spec", "securityContext", "runAsNonRoot"))
		_, err = ri.Namespace(ns).Create(ctx, root, dryRun)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "violates PodSecurity \"restricted")
	}
}

// TestHelmTestImageIsPinned: tests.image needs a digest, as every image of the chart (CH-2).
func TestHelmTestImageIsPinned(t *testing.T) {
	t.Parallel()
	_, err := render(withValues(map[string]any{"tests.image": map[string]any{"repository": "registry.k8s.io/kubectl", "digest": "v1.34.4"}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at '/tests/image/digest'")
}
