package chart_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/argoproj/gitops-engine/pkg/sync/common"
	"github.com/argoproj/gitops-engine/pkg/sync/hook"
	resourceutil "github.com/argoproj/gitops-engine/pkg/sync/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/nvidia/aicr-operator/test/chartrender"
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
	var out []*unstructured.Unstructured
	for _, h := range renderRelease(t, values).Hooks {
		o := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(h.Manifest), &o.Object), h.Path)
		out = append(out, o)
	}
	return out
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
// or a certificate generator (issue 17).
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

// TestKeptObjectsSurviveAnArgoCDUninstall: every object helm uninstall keeps also carries
// Argo CD's Prune=false and Delete=false, read with Argo CD's own parser (gitops-engine), so an
// Application of this chart neither prunes them when values stop rendering them nor deletes
// them when the Application is deleted; every other object carries neither and goes.
func TestKeptObjectsSurviveAnArgoCDUninstall(t *testing.T) {
	t.Parallel()
	objs, err := render(everythingValues())
	require.NoError(t, err)
	var kept []string
	for _, o := range objs {
		id := o.GetKind() + "/" + o.GetName()
		prune := resourceutil.HasAnnotationOption(o, common.AnnotationSyncOptions, common.SyncOptionDisablePrune)
		del := resourceutil.HasAnnotationOption(o, common.AnnotationSyncOptions, common.SyncOptionDisableDeletion)
		if o.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
			assert.False(t, prune || del, "%s is not kept, so Argo CD removes it with the rest", id)
			continue
		}
		kept = append(kept, id)
		assert.True(t, prune, "%s: Prune=false", id)
		assert.True(t, del, "%s: Delete=false", id)
	}
	sort.Strings(kept)
	want := []string{
		"AppProject/aicr",
		"CustomResourceDefinition/clusterruntimes.operator.aicr.run",
		"CustomResourceDefinition/runtimerollouts.operator.aicr.run",
		"Namespace/aicr-discovery", "Namespace/aicr-jobs", "Namespace/aicr-validation", "Namespace/gpu-operator",
		"Secret/aicr-registry",
	}
	for _, p := range []string{"aicr-operator-approval", "aicr-operator-engine-guard", "aicr-operator-job-configmaps",
		"aicr-operator-job-workloads", "aicr-operator-plans", "aicr-operator-status"} {
		want = append(want, "ValidatingAdmissionPolicy/"+p, "ValidatingAdmissionPolicyBinding/"+p)
	}
	sort.Strings(want)
	assert.Equal(t, want, kept, "CH-3: what survives uninstall")
}

// TestArgoCDNeverRunsTheHelmTestHook: every hook of the chart is a helm test hook, which Argo CD
// (gitops-engine) treats as a hook of no sync phase, so it neither applies nor runs it; no other
// object is a hook, so Argo CD syncs all of them.
func TestArgoCDNeverRunsTheHelmTestHook(t *testing.T) {
	t.Parallel()
	hooks := renderHooks(t, requiredValues())
	require.NotEmpty(t, hooks)
	for _, o := range hooks {
		assert.Equal(t, "test", o.GetAnnotations()["helm.sh/hook"], "%s/%s", o.GetKind(), o.GetName())
		assert.True(t, hook.IsHook(o), "%s/%s is a hook for Argo CD", o.GetKind(), o.GetName())
		assert.Empty(t, hook.Types(o), "%s/%s has no Argo CD sync phase", o.GetKind(), o.GetName())
	}
	objs, err := render(everythingValues())
	require.NoError(t, err)
	for _, o := range objs {
		assert.False(t, hook.IsHook(o), "%s/%s is synced by Argo CD", o.GetKind(), o.GetName())
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
