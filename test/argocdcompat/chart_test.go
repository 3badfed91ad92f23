package argocdcompat_test

import (
	"sort"
	"testing"

	"github.com/argoproj/gitops-engine/pkg/sync/common"
	"github.com/argoproj/gitops-engine/pkg/sync/hook"
	resourceutil "github.com/argoproj/gitops-engine/pkg/sync/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// releaseNamespace is the operator namespace the chart is rendered into.
const releaseNamespace = "aicr-system"

// everyOptionOn turns on every optional part of the chart that adds objects: the aws provider
// (repo-creds Secret), validation, approvers, two replicas with their budget and the
// monitoring objects.
func everyOptionOn() map[string]any {
	return chartrender.WithValues(map[string]any{
		"registry.auth.provider":                "aws",
		"registry.auth.awsPullRoleArn":          "arn:aws:iam::123456789012:role/aicr-argocd-pull",
		"operator.awsPodIdentity":               true,
		"operator.replicas":                     2,
		"operator.podDisruptionBudget.enabled":  true,
		"validation.enabled":                    true,
		"approvers.users":                       []any{"approver-alice"},
		"monitoring.serviceMonitor.enabled":     true,
		"monitoring.prometheusRule.enabled":     true,
		"monitoring.grafanaDashboard.enabled":   true,
		"monitoring.grafanaDashboard.namespace": "monitoring",
	})
}

// TestKeptObjectsSurviveAnArgoCDUninstall: every object helm uninstall keeps also carries
// Argo CD's Prune=false and Delete=false, read with Argo CD's own parser (gitops-engine), so an
// Application of this chart neither prunes them when values stop rendering them nor deletes
// them when the Application is deleted; every other object carries neither and goes.
func TestKeptObjectsSurviveAnArgoCDUninstall(t *testing.T) {
	t.Parallel()
	objs, err := chartrender.Render(releaseNamespace, everyOptionOn())
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
		"aicr-operator-job-workloads", "aicr-operator-plans", "aicr-operator-status", "aicr-operator-validation-run"} {
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
	hooks, err := chartrender.Hooks(releaseNamespace, chartrender.RequiredValues())
	require.NoError(t, err)
	require.NotEmpty(t, hooks)
	for _, o := range hooks {
		assert.Equal(t, "test", o.GetAnnotations()["helm.sh/hook"], "%s/%s", o.GetKind(), o.GetName())
		assert.True(t, hook.IsHook(o), "%s/%s is a hook for Argo CD", o.GetKind(), o.GetName())
		assert.Empty(t, hook.Types(o), "%s/%s has no Argo CD sync phase", o.GetKind(), o.GetName())
	}
	objs, err := chartrender.Render(releaseNamespace, everyOptionOn())
	require.NoError(t, err)
	for _, o := range objs {
		assert.False(t, hook.IsHook(o), "%s/%s is synced by Argo CD", o.GetKind(), o.GetName())
	}
}
