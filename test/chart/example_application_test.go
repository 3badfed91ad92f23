package chart_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// exampleObjects reads docs/examples/argocd-application.yaml: its Namespace and Application.
func exampleObjects(t *testing.T) (ns, app *unstructured.Unstructured) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "..", "..", "docs", "examples", "argocd-application.yaml"))
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		o := &unstructured.Unstructured{}
		if err := dec.Decode(&o.Object); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		switch o.GetKind() {
		case "Namespace":
			ns = o
		case "Application":
			app = o
		default:
			t.Fatalf("the example holds a %s", o.GetKind())
		}
	}
	require.NotNil(t, ns, "the example creates the release namespace")
	require.NotNil(t, app, "the example holds the Application")
	return ns, app
}

// TestExampleApplicationInstallsTheChart: the example Argo CD Application names the chart's OCI
// repository, installs it into the Namespace the example creates, with a server-side apply, and
// its values render the chart; the operator's Pod that render makes is admitted by a namespace
// labelled as the example's is (Pod Security enforced by a real API server, dry run).
func TestExampleApplicationInstallsTheChart(t *testing.T) {
	t.Parallel()
	needEnv(t)
	ns, app := exampleObjects(t)
	str := func(path ...string) string {
		s, _, err := unstructured.NestedString(app.Object, path...)
		require.NoError(t, err)
		return s
	}
	assert.Equal(t, "argoproj.io/v1alpha1", app.GetAPIVersion())
	assert.Equal(t, "oci://ghcr.io/nvidia/charts/aicr-operator", str("spec", "source", "repoURL"))
	assert.NotEmpty(t, str("spec", "source", "targetRevision"))
	assert.NotEqual(t, "aicr", str("spec", "project"), "the operator's own AppProject admits only the GPU stack")
	assert.Equal(t, ns.GetName(), str("spec", "destination", "namespace"))
	options, _, err := unstructured.NestedStringSlice(app.Object, "spec", "syncPolicy", "syncOptions")
	require.NoError(t, err)
	assert.Contains(t, options, "ServerSideApply=true", "the CRDs do not fit a client-side apply's annotation")
	values, ok, err := unstructured.NestedMap(app.Object, "spec", "source", "helm", "valuesObject")
	require.NoError(t, err)
	require.True(t, ok)

	objs, err := render(values)
	require.NoError(t, err, "the example's values render the chart")
	deployment := find(objs, "Deployment", releaseNamespace, "aicr-operator")
	require.NotNil(t, deployment)
	template, _, err := unstructured.NestedMap(deployment.Object, "spec", "template")
	require.NoError(t, err)

	ctx := context.Background()
	admin := dynamicFor(testEnv.Config)
	const probe = "example-release-namespace"
	require.NoError(t, create(ctx, admin, object("v1", "Namespace", "", probe, ns.GetLabels())))
	// No namespace controller runs here, so the namespace is not waited for after its delete.
	t.Cleanup(func() { _ = admin.Resource(namespaceGVR).Delete(ctx, probe, metav1.DeleteOptions{}) })
	sa := object("v1", "ServiceAccount", probe, "aicr-operator", nil)
	_, err = admin.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).Namespace(probe).
		Create(ctx, sa, metav1.CreateOptions{})
	require.NoError(t, err)
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "aicr-operator", "namespace": probe}, "spec": template["spec"]}}
	_, err = admin.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(probe).
		Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	assert.NoError(t, err, "the operator's Pod is admitted at the example namespace's Pod Security level")
}
