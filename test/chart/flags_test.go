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
			cfg := renderedConfig(t, sets)
			require.Equal(t, releaseNamespace, cfg.OperatorNamespace)
			require.Equal(t, []string{"gpu-operator"}, cfg.ComponentNamespaces)
		})
	}
}

// TestDeploymentArgsCarryTheJobPodSettings: the jobs.* values reach the operator as the pod
// settings of every AICR Job (issue 15): deadline, resources (a number too), node selector,
// tolerations and pull Secrets.
func TestDeploymentArgsCarryTheJobPodSettings(t *testing.T) {
	t.Parallel()
	cfg := renderedConfig(t, map[string]any{
		"jobs.activeDeadlineSeconds": 7200, "jobs.resources.requests.cpu": 1, "jobs.resources.limits.memory": "2Gi",
		"jobs.nodeSelector":     map[string]any{"node-role.example.com/system": "true"},
		"jobs.tolerations":      []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "system", "effect": "NoSchedule"}},
		"jobs.imagePullSecrets": []any{map[string]any{"name": "regcred"}, map[string]any{"name": "mirror"}},
	})
	require.Equal(t, app.JobPodSettings{
		ActiveDeadlineSeconds: 7200,
		Resources: app.JobResources{Requests: map[string]app.Quantity{"cpu": "1", "memory": "256Mi"},
			Limits: map[string]app.Quantity{"memory": "2Gi"}},
		NodeSelector:     map[string]string{"node-role.example.com/system": "true"},
		Tolerations:      []app.JobToleration{{Key: "dedicated", Operator: "Equal", Value: "system", Effect: "NoSchedule"}},
		ImagePullSecrets: []string{"regcred", "mirror"},
	}, cfg.Jobs)
}

// renderedConfig renders the chart with sets and parses the Deployment's args with the
// operator's own flag set; the result must validate.
func renderedConfig(t *testing.T, sets map[string]any) app.Config {
	t.Helper()
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
	return cfg
}
