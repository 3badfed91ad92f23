package chart_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// defaultClusterResources is the AppProject's allow-list with the chart's default values: the
// cluster-scoped kinds the GPU stack's releases need, each one exact group and kind (ENG-1 CH-5).
var defaultClusterResources = [][2]string{
	{"apiextensions.k8s.io", "CustomResourceDefinition"},
	{"rbac.authorization.k8s.io", "ClusterRole"},
	{"rbac.authorization.k8s.io", "ClusterRoleBinding"},
	{"", "Namespace"},
	{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
	{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
	{"apiregistration.k8s.io", "APIService"},
	{"scheduling.k8s.io", "PriorityClass"},
	{"node.k8s.io", "RuntimeClass"},
	{"storage.k8s.io", "StorageClass"},
	{"storage.k8s.io", "CSIDriver"},
	{"resource.k8s.io", "DeviceClass"},
	{"nvidia.com", "ClusterPolicy"},
	{"nvidia.com", "NVIDIADriver"},
	{"nfd.k8s-sigs.io", "NodeFeatureRule"},
	{"mellanox.com", "NicClusterPolicy"},
	{"trainer.kubeflow.org", "ClusterTrainingRuntime"},
	{"skyhook.nvidia.com", "Skyhook"},
	{"scheduling.run.ai", "Queue"},
	{"kai.scheduler", "Config"},
	{"kai.scheduler", "SchedulingShard"},
	{"gateway.networking.k8s.io", "GatewayClass"},
}

// forbiddenClusterResources are the kinds no Application may ever write, blacklisted by the
// AppProject whatever the values say.
var forbiddenClusterResources = []any{
	groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
	groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
	groupKind("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
	groupKind("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
	groupKind("operator.aicr.run", "*"),
}

func groupKind(group, kind string) map[string]any {
	return map[string]any{"group": group, "kind": kind}
}

func groupKinds(pairs [][2]string) []any {
	out := make([]any, len(pairs))
	for i, p := range pairs {
		out[i] = groupKind(p[0], p[1])
	}
	return out
}

// appProjectSpec renders values and returns the AppProject's spec.
func appProjectSpec(t *testing.T, values map[string]any) map[string]any {
	t.Helper()
	objs, err := render(values)
	require.NoError(t, err)
	p := find(objs, "AppProject", "argocd", "aicr")
	require.NotNil(t, p)
	spec, _, _ := unstructured.NestedMap(p.Object, "spec")
	return spec
}

// TestAppProjectAllowsOnlyTheGPUStacksClusterKinds: by default the AppProject allows exactly
// the cluster-scoped kinds the GPU stack needs, never a wildcard, never an admission policy or
// the operator's own API, and blacklists those whatever the allow-list says (ENG-1 CH-5).
func TestAppProjectAllowsOnlyTheGPUStacksClusterKinds(t *testing.T) {
	t.Parallel()
	spec := appProjectSpec(t, requiredValues())
	allowed, _ := spec["clusterResourceWhitelist"].([]any)
	assert.Equal(t, groupKinds(defaultClusterResources), allowed, "ENG-1 CH-5 the default allow-list")
	for _, e := range allowed {
		gk, _ := e.(map[string]any)
		group, kind := fmt.Sprint(gk["group"]), fmt.Sprint(gk["kind"])
		assert.NotContains(t, group+kind, "*", "ENG-1 CH-5 no wildcard")
		assert.NotEqual(t, "operator.aicr.run", group, "ENG-1 CH-5 never the operator's own API")
		if group == "admissionregistration.k8s.io" {
			assert.Contains(t, []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}, kind,
				"ENG-1 CH-5 of admissionregistration.k8s.io only the webhook configurations")
		}
	}
	assert.Equal(t, forbiddenClusterResources, spec["clusterResourceBlacklist"],
		"ENG-1 CH-5 admission policies, their bindings and operator.aicr.run are blacklisted (defence in depth)")
	assert.Equal(t, []any{groupKind("operator.aicr.run", "*")}, spec["namespaceResourceBlacklist"])
}

// TestAppProjectAllowListFromValues: engine.clusterResources replaces the allow-list, and the
// blacklist stays whatever it says (ENG-1 CH-5).
func TestAppProjectAllowListFromValues(t *testing.T) {
	t.Parallel()
	t.Run("ENG-1 CH-5 a narrower list replaces the default", func(t *testing.T) {
		t.Parallel()
		spec := appProjectSpec(t, withValues(map[string]any{"engine.clusterResources": []any{
			groupKind("apiextensions.k8s.io", "CustomResourceDefinition"),
			groupKind("networking.k8s.io", "IngressClass"),
		}}))
		assert.Equal(t, groupKinds([][2]string{
			{"apiextensions.k8s.io", "CustomResourceDefinition"}, {"networking.k8s.io", "IngressClass"},
		}), spec["clusterResourceWhitelist"])
		assert.Equal(t, forbiddenClusterResources, spec["clusterResourceBlacklist"])
	})
	t.Run("ENG-1 CH-5 an empty list allows no cluster-scoped kind", func(t *testing.T) {
		t.Parallel()
		spec := appProjectSpec(t, withValues(map[string]any{"engine.clusterResources": []any{}}))
		allowed, ok := spec["clusterResourceWhitelist"].([]any)
		assert.True(t, ok, "rendered as an empty list, which Argo CD reads as deny all")
		assert.Empty(t, allowed)
		assert.Equal(t, forbiddenClusterResources, spec["clusterResourceBlacklist"])
	})
}

// forbiddenAllowListCases are engine.clusterResources entries the chart must refuse, with the
// refusal each gets: the template's for entries of valid shape, the schema's for wildcards and
// malformed names.
func forbiddenAllowListCases() []struct {
	name  string
	entry map[string]any
	want  string
} {
	never := "is never allowed"
	return []struct {
		name  string
		entry map[string]any
		want  string
	}{
		{"ENG-1 CH-5 ValidatingAdmissionPolicy", groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"), never},
		{"ENG-1 CH-5 ValidatingAdmissionPolicyBinding", groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"), never},
		{"ENG-1 CH-5 MutatingAdmissionPolicy", groupKind("admissionregistration.k8s.io", "MutatingAdmissionPolicy"), never},
		{"ENG-1 CH-5 MutatingAdmissionPolicyBinding", groupKind("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"), never},
		{"ENG-1 CH-5 an admission kind in other letter case", groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPOLICY"), never},
		{"ENG-1 CH-5 a later admissionregistration kind", groupKind("admissionregistration.k8s.io", "ValidatingAdmissionPolicyV2"), never},
		{"ENG-1 CH-5 the operator's ClusterRuntime", groupKind("operator.aicr.run", "ClusterRuntime"), never},
		{"ENG-1 CH-5 the operator's RuntimeRollout", groupKind("operator.aicr.run", "RuntimeRollout"), never},
		{"ENG-1 CH-5 a group under operator.aicr.run", groupKind("policy.operator.aicr.run", "Anything"), never},
		{"ENG-1 CH-5 a wildcard kind", groupKind("admissionregistration.k8s.io", "*"), "kind"},
		{"ENG-1 CH-5 a glob kind", groupKind("admissionregistration.k8s.io", "*AdmissionPolicy*"), "kind"},
		{"ENG-1 CH-5 a character-class kind", groupKind("admissionregistration.k8s.io", "[MV]alidatingAdmissionPolicy"), "kind"},
		{"ENG-1 CH-5 a wildcard group", groupKind("*", "ClusterRuntime"), "group"},
		{"ENG-1 CH-5 a glob group", groupKind("operator.aicr.*", "ClusterRuntime"), "group"},
		{"ENG-1 CH-5 an upper-case group", groupKind("Operator.AICR.run", "ClusterRuntime"), "group"},
	}
}

// TestAppProjectRefusesForbiddenClusterKinds: a value naming an admission policy, its binding,
// any kind of operator.aicr.run or a glob fails the render with a message naming the entry,
// however the rest of the list looks (ENG-1 CH-5).
func TestAppProjectRefusesForbiddenClusterKinds(t *testing.T) {
	t.Parallel()
	for _, c := range forbiddenAllowListCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := render(withValues(map[string]any{"engine.clusterResources": append(
				groupKinds(defaultClusterResources[:2]), c.entry)}))
			require.Error(t, err, "the chart renders an AppProject allowing %v", c.entry)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "clusterResources")
		})
	}
}

// TestAppProjectRefusesForbiddenClusterKindsWithoutSchema: the template refuses the same
// entries when the schema is skipped (helm install --skip-schema-validation), so the refusal
// does not rest on values.schema.json alone (ENG-1 CH-5).
func TestAppProjectRefusesForbiddenClusterKindsWithoutSchema(t *testing.T) {
	t.Parallel()
	for _, c := range forbiddenAllowListCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := renderWithoutSchema(withValues(map[string]any{"engine.clusterResources": []any{c.entry}}))
			require.Error(t, err, "the template renders an AppProject allowing %v", c.entry)
			assert.Contains(t, err.Error(), "engine.clusterResources[0]")
		})
	}
	require.NoError(t, renderWithoutSchema(requiredValues()), "the defaults render without the schema too")
}

// renderWithoutSchema renders the chart as `helm template --skip-schema-validation` does.
func renderWithoutSchema(values map[string]any) error {
	chrt, err := loader.Load(chartDir())
	if err != nil {
		return err
	}
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.SkipSchemaValidation = true
	install.ReleaseName, install.Namespace = "aicr-operator", releaseNamespace
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	_, err = install.Run(chrt, values)
	return err
}

// TestReadmeDocumentsEveryAllowedClusterKind: the chart README says why each kind of the
// default allow-list is there (ENG-1 CH-5).
func TestReadmeDocumentsEveryAllowedClusterKind(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "README.md"))
	require.NoError(t, err)
	readme := string(raw)
	start := strings.Index(readme, "## Cluster-scoped kinds of the AppProject")
	require.GreaterOrEqual(t, start, 0)
	section := readme[start:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	for _, gk := range defaultClusterResources {
		group := gk[0]
		if group == "" {
			group = `""`
		}
		assert.Contains(t, section, "`"+gk[1]+"`", "README explains %s/%s", gk[0], gk[1])
		assert.Contains(t, section, "`"+group+"`", "README names group %q", gk[0])
	}
}
