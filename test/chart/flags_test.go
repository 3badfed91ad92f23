package chart_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/app"
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
			cfg := operatorConfig(t, sets)
			require.Equal(t, releaseNamespace, cfg.OperatorNamespace)
			require.Equal(t, []string{"gpu-operator"}, cfg.ComponentNamespaces)
		})
	}
}

// TestRolloutValuesReachTheOperator: rollout.stepTimeout, rollout.window and
// rollout.componentStepTimeouts become the operator's step timeout, window and per-component
// step timeouts.
func TestRolloutValuesReachTheOperator(t *testing.T) {
	t.Parallel()
	cfg := operatorConfig(t, map[string]any{
		"rollout.stepTimeout": "30m", "rollout.window": "48h",
		"rollout.componentStepTimeouts": map[string]any{"gpu-operator": "2h", "network-operator": "45m"},
	})
	require.Equal(t, 30*time.Minute, cfg.StepTimeout)
	require.Equal(t, 48*time.Hour, cfg.RolloutWindow)
	require.Equal(t, map[string]time.Duration{"gpu-operator": 2 * time.Hour, "network-operator": 45 * time.Minute},
		cfg.ComponentStepTimeouts)
}

// TestDeploymentArgsCarryTheJobPodSettings: the jobs.* values reach the operator as the pod
// settings of every AICR Job: deadline, resources (a number too), node selector,
// tolerations and pull Secrets.
func TestDeploymentArgsCarryTheJobPodSettings(t *testing.T) {
	t.Parallel()
	cfg := operatorConfig(t, map[string]any{
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

// operatorConfig renders the chart with sets and parses the Deployment's args with the
// operator's own flag set; the result must validate.
func operatorConfig(t *testing.T, sets map[string]any) app.Config {
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
