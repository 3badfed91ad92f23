package chart_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/app"
)

// upstreamCredentials is an upstream.credentials value: NGC's Helm repository and registry with
// one Secret, a private OCI registry with another.
func upstreamCredentials() []any {
	return []any{
		map[string]any{"repository": "https://helm.ngc.nvidia.com/nvidia", "secret": "ngc-helm"},
		map[string]any{"repository": "oci://nvcr.io/nvidia", "secret": "ngc-helm"},
		map[string]any{"repository": "oci://registry.example.com:5000/private/", "secret": "private-oci"},
	}
}

// secretRules returns the rules of the operator's Role in the release namespace on Secrets.
func secretRules(t *testing.T, values map[string]any) []map[string]any {
	t.Helper()
	objs, err := render(values)
	require.NoError(t, err)
	role := find(objs, "Role", releaseNamespace, "aicr-operator")
	require.NotNil(t, role)
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	var out []map[string]any
	for _, r := range rules {
		if rule := r.(map[string]any); reflect.DeepEqual([]any{"secrets"}, rule["resources"]) {
			out = append(out, rule)
		}
	}
	return out
}

// TestRenderUpstreamCredentials_ReachTheOperatorAsFlags: each upstream.credentials entry
// becomes one --upstream-credentials=<prefix>=<secret> the operator parses and accepts.
func TestRenderUpstreamCredentials_ReachTheOperatorAsFlags(t *testing.T) {
	t.Parallel()
	cfg := operatorConfig(t, map[string]any{"upstream.credentials": upstreamCredentials()})
	assert.Equal(t, []app.UpstreamCredential{
		{Repository: "https://helm.ngc.nvidia.com/nvidia", Secret: "ngc-helm"},
		{Repository: "oci://nvcr.io/nvidia", Secret: "ngc-helm"},
		{Repository: "oci://registry.example.com:5000/private/", Secret: "private-oci"},
	}, cfg.UpstreamCredentials)
	assert.Empty(t, operatorConfig(t, nil).UpstreamCredentials, "no credentials by default")
}

// TestRenderUpstreamCredentials_OperatorGetsExactlyThoseSecrets: the operator may get the
// Secrets of upstream.credentials by name, each once, beside the static provider's and its seal
// key (which it creates); nothing lets it list or watch Secrets, and without credentials there
// is no such grant.
func TestRenderUpstreamCredentials_OperatorGetsExactlyThoseSecrets(t *testing.T) {
	t.Parallel()
	createSecrets := map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "verbs": []any{"create"}}
	sealKey := map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"},
		"resourceNames": []any{sealer.SecretName}, "verbs": []any{"get"}}
	staticSecret := map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"},
		"resourceNames": []any{"aicr-registry-auth"}, "verbs": []any{"get"}}
	assert.Equal(t, []map[string]any{createSecrets, sealKey, staticSecret}, secretRules(t, requiredValues()))

	assert.Equal(t, []map[string]any{createSecrets, sealKey, staticSecret, {"apiGroups": []any{""}, "resources": []any{"secrets"},
		"resourceNames": []any{"ngc-helm", "private-oci"}, "verbs": []any{"get"}}},
		secretRules(t, withValues(map[string]any{"upstream.credentials": upstreamCredentials()})))
}

func TestRenderUpstreamCredentials_RefusesWhatTheOperatorWouldNot(t *testing.T) {
	t.Parallel()
	entry := func(repository, secret string) map[string]any {
		return withValues(map[string]any{"upstream.credentials": []any{map[string]any{"repository": repository, "secret": secret}}})
	}
	for name, c := range map[string]struct {
		values map[string]any
		want   []string
	}{
		"REG-1 a plain http repository": {entry("http://charts.example.com", "charts"),
			[]string{"at '/upstream/credentials/0/repository'", "does not match pattern"}},
		"REG-1 a repository without scheme": {entry("helm.ngc.nvidia.com/nvidia", "ngc-helm"),
			[]string{"at '/upstream/credentials/0/repository'", "does not match pattern"}},
		"REG-1 a login in the repository URL": {entry("https://user:key@charts.example.com", "charts"),
			[]string{"at '/upstream/credentials/0/repository'", "does not match pattern"}},
		"REG-1 a query in the repository URL": {entry("https://charts.example.com/x?token=1", "charts"),
			[]string{"at '/upstream/credentials/0/repository'", "does not match pattern"}},
		"REG-1 a Secret that cannot be a Secret name": {entry("oci://nvcr.io/nvidia", "NGC_Key"),
			[]string{"at '/upstream/credentials/0/secret'", "does not match pattern"}},
		"REG-1 an entry without its Secret": {withValues(map[string]any{"upstream.credentials": []any{
			map[string]any{"repository": "oci://nvcr.io/nvidia"}}}),
			[]string{"at '/upstream/credentials/0'", "missing property 'secret'"}},
		"REG-1 an unknown key of an entry": {withValues(map[string]any{"upstream.credentials": []any{
			map[string]any{"repository": "oci://nvcr.io/nvidia", "secret": "ngc", "username": "x"}}}),
			notAllowed("/upstream/credentials/0", "username")},
		"REG-1 an unknown key under upstream": {withValues(map[string]any{"upstream.extra": "x"}),
			notAllowed("/upstream", "extra")},
		"REG-1 a repository listed twice": {withValues(map[string]any{"upstream.credentials": []any{
			map[string]any{"repository": "https://helm.ngc.nvidia.com/nvidia", "secret": "ngc-helm"},
			map[string]any{"repository": "https://helm.ngc.nvidia.com/nvidia/", "secret": "other"}}}),
			[]string{"upstream.credentials lists repository https://helm.ngc.nvidia.com/nvidia twice"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := render(c.values)
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
