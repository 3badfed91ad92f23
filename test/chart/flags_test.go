package chart_test

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/nvidia/aicr-operator/app"
)

// TestDeploymentArgsParseAsOperatorConfig feeds the rendered Deployment's args to the
// operator's own flag set (app.Config.BindFlags), so the chart and the composition root cannot
// drift apart: an unknown or misspelt flag fails here, and the result must validate.
func TestDeploymentArgsParseAsOperatorConfig(t *testing.T) {
	t.Parallel()
	for name, sets := range map[string]map[string]any{
		"CH-2 static registry, validation off": {},
		"CH-2 aws registry, validation on": {
			"registry.auth.provider": "aws", "operator.awsPodIdentity": true, "validation.enabled": true,
			"registry.auth.awsPullRoleArn": pullRoleARN,
		},
		"CH-2 in-cluster registry": {"registry.auth.provider": "inCluster"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs, err := render(withValues(sets))
			require.NoError(t, err)
			d := find(objs, "Deployment", releaseNamespace, "aicr-operator")
			require.NotNil(t, d)
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			require.Len(t, containers, 1)
			c, _ := containers[0].(map[string]any)
			args, _, _ := unstructured.NestedStringSlice(c, "args")
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "$(POD_NAMESPACE)", releaseNamespace)
			}
			var cfg app.Config
			fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			cfg.BindFlags(fs)
			require.NoError(t, fs.Parse(args))
			require.Empty(t, fs.Args(), "every arg is a flag")
			require.NoError(t, cfg.Validate())
			require.Equal(t, releaseNamespace, cfg.OperatorNamespace)
			require.Equal(t, []string{"gpu-operator"}, cfg.ComponentNamespaces)
		})
	}
}
