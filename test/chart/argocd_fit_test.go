package chart_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// renderRelease renders the chart client-only, as `helm template` and Argo CD's repo server do
// (no cluster, no lookup), and returns the whole release: manifest, hooks and NOTES.
func renderRelease(t *testing.T, values map[string]any) *release.Release {
	t.Helper()
	chrt, err := loader.Load(chartDir())
	require.NoError(t, err)
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.ReleaseName = chartrender.ReleaseName
	install.Namespace = releaseNamespace
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	rel, err := install.Run(chrt, values)
	require.NoError(t, err)
	return rel
}

// renderHooks returns the release's hooks as objects.
func renderHooks(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	hooks, err := chartrender.Hooks(releaseNamespace, values)
	require.NoError(t, err)
	return hooks
}

// everythingValues turns on every optional part of the chart: the aws provider (repo-creds
// Secret), validation, approvers, two replicas with their budget and the monitoring objects.
func everythingValues() map[string]any {
	return withValues(map[string]any{
		"registry.auth.provider":                "aws",
		"registry.auth.awsPullRoleArn":          pullRoleARN,
		"operator.awsPodIdentity":               true,
		"operator.replicas":                     2,
		"operator.podDisruptionBudget.enabled":  true,
		"validation.enabled":                    true,
		"approvers.users":                       []any{approverUser},
		"monitoring.serviceMonitor.enabled":     true,
		"monitoring.serviceMonitor.labels":      map[string]any{"release": "kube-prometheus-stack"},
		"monitoring.prometheusRule.enabled":     true,
		"monitoring.prometheusRule.labels":      map[string]any{"release": "kube-prometheus-stack"},
		"monitoring.grafanaDashboard.enabled":   true,
		"monitoring.grafanaDashboard.namespace": "monitoring",
	})
}

// templateAction matches one template action, comments excluded.
var templateAction = regexp.MustCompile(`(?s)\{\{-?\s*([^/].*?)-?\}\}`)

// clusterOrRandomFunctions are the template functions whose output depends on the cluster or
// on chance: Argo CD renders without cluster access (lookup returns nothing) and renders again
// on every refresh, so any of them would make it see a diff that never settles.
var clusterOrRandomFunctions = regexp.MustCompile(
	`\b(lookup|randAlphaNum|randAlpha|randNumeric|randAscii|randBytes|randInt|uuidv4|now|date|dateInZone|unixEpoch|` +
		`genCA|genCAWithKey|genPrivateKey|genSelfSignedCert|genSelfSignedCertWithKey|genSignedCert|genSignedCertWithKey|shuffle)\b`)

// TestTemplatesNeedNoClusterAndNoChance: no template calls lookup, a random or time function
// or a certificate generator.
func TestTemplatesNeedNoClusterAndNoChance(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(filepath.Join(chartDir(), "templates"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range templateAction.FindAllStringSubmatch(string(raw), -1) {
			assert.NotRegexp(t, clusterOrRandomFunctions, m[1], "%s: %s", path, m[0])
		}
		return nil
	})
	require.NoError(t, err)
}

// TestRenderIsReproducible renders the chart twice as Argo CD does (client-only, with every
// optional part on) and gets byte-identical manifests, hooks and notes, and equal objects from
// the shared renderer: Argo CD compares each render with the live state, so a render that
// changes by itself would never be in sync.
func TestRenderIsReproducible(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{
		"required values only": requiredValues(),
		"every option on":      everythingValues(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first, second := renderRelease(t, values), renderRelease(t, values)
			assert.Equal(t, first.Manifest, second.Manifest)
			assert.Equal(t, first.Info.Notes, second.Info.Notes)
			require.Len(t, second.Hooks, len(first.Hooks))
			for i := range first.Hooks {
				assert.Equal(t, first.Hooks[i].Manifest, second.Hooks[i].Manifest)
			}
			a, err := chartrender.Render(releaseNamespace, values)
			require.NoError(t, err)
			b, err := chartrender.Render(releaseNamespace, values)
			require.NoError(t, err)
			assert.Equal(t, a, b)
		})
	}
}

// TestHealthChecksAreShippedAndQuoted: the README quotes each Lua health check as shipped, under
// the resource.customizations key Argo CD reads it from.
func TestHealthChecksAreShippedAndQuoted(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(chartDir(), "README.md"))
	require.NoError(t, err)
	for kind, file := range map[string]string{"ClusterRuntime": "clusterruntime.lua", "RuntimeRollout": "runtimerollout.lua"} {
		script, err := os.ReadFile(filepath.Join(chartDir(), "health", file))
		require.NoError(t, err)
		key := "resource.customizations.health.operator.aicr.run_" + kind + ": |\n"
		i := strings.Index(string(readme), key)
		require.GreaterOrEqual(t, i, 0, "README names %s", key)
		var indented strings.Builder
		for _, line := range strings.Split(strings.TrimRight(string(script), "\n"), "\n") {
			if line != "" {
				indented.WriteString("    " + line)
			}
			indented.WriteString("\n")
		}
		assert.True(t, strings.HasPrefix(string(readme[i+len(key):]), indented.String()),
			"README quotes health/%s verbatim under %s", file, key)
	}
}
