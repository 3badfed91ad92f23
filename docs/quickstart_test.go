package docs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// TestQuickstart_ObjectsAndValues: every YAML block of quickstart.md is an object the API
// decodes strictly, or the chart's values, which render the chart; the repo-creds Secret points
// at the values' registry, the release namespace enforces the restricted Pod Security level, and
// the ClusterRuntime is the one named cluster with both node groups placed.
func TestQuickstart_ObjectsAndValues(t *testing.T) {
	t.Parallel()
	var (
		values  map[string]any
		secret  *corev1.Secret
		ns      *corev1.Namespace
		runtime *aicrv1alpha1.ClusterRuntime
	)
	for _, b := range fencedYAML.FindAllStringSubmatch(read(t, "quickstart.md"), -1) {
		raw := []byte(b[1])
		var head struct{ Kind string }
		require.NoError(t, yaml.Unmarshal(raw, &head), b[1])
		switch head.Kind {
		case "":
			require.Nil(t, values, "one values block")
			require.NoError(t, yaml.Unmarshal(raw, &values))
		case "Secret":
			secret = &corev1.Secret{}
			require.NoError(t, yaml.UnmarshalStrict(raw, secret))
		case "Namespace":
			ns = &corev1.Namespace{}
			require.NoError(t, yaml.UnmarshalStrict(raw, ns))
		case "ClusterRuntime":
			runtime = &aicrv1alpha1.ClusterRuntime{}
			require.NoError(t, yaml.UnmarshalStrict(raw, runtime))
		default:
			t.Fatalf("quickstart.md applies a %s this test does not check", head.Kind)
		}
	}
	require.NotNil(t, values)
	require.NotNil(t, secret)
	require.NotNil(t, ns)
	require.NotNil(t, runtime)

	objs, err := chartrender.Render(ns.Name, values)
	require.NoError(t, err, "the quickstart's values render the chart")
	assert.NotEmpty(t, objs)
	registry := values["registry"].(map[string]any)
	assert.Equal(t, registry["repository"], secret.StringData["url"], "Argo CD's credentials cover the registry")
	assert.Equal(t, "repo-creds", secret.Labels["argocd.argoproj.io/secret-type"])
	assert.Equal(t, "oci", secret.StringData["type"])
	assert.Equal(t, "aicr-registry", secret.Name, "the chart's default registry.auth.repoCredsSecret")
	assert.Equal(t, "restricted", ns.Labels["pod-security.kubernetes.io/enforce"])
	assert.Equal(t, aicrv1alpha1.ClusterRuntimeName, runtime.Name)
	assert.NotEmpty(t, runtime.Spec.Placement.System.NodeSelector)
	assert.NotEmpty(t, runtime.Spec.Placement.Accelerated.NodeSelector)
}
