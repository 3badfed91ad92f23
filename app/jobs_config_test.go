package app_test

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
)

// TestJobPodSettings: the --jobs-* flags take what the chart renders (JSON with toJson, a
// comma-separated list of Secrets) into the pod settings of every AICR Job.
func TestJobPodSettings(t *testing.T) {
	t.Parallel()
	c := parse(t, append(append([]string{}, chartArgs...),
		"--jobs-active-deadline-seconds=1800",
		`--jobs-resources={"requests":{"cpu":0.5,"memory":"256Mi"},"limits":{"memory":"1Gi"}}`,
		`--jobs-node-selector={"kubernetes.io/os":"linux","node-role.example.com/system":""}`,
		`--jobs-tolerations=[{"key":"dedicated","operator":"Equal","value":"system","effect":"NoSchedule"},{"operator":"Exists"}]`,
		"--jobs-image-pull-secrets=regcred, mirror-cred")...)
	require.NoError(t, c.Validate())
	assert.Equal(t, app.JobPodSettings{
		ActiveDeadlineSeconds: 1800,
		Resources: app.JobResources{Requests: map[string]app.Quantity{"cpu": "0.5", "memory": "256Mi"},
			Limits: map[string]app.Quantity{"memory": "1Gi"}},
		NodeSelector: map[string]string{"kubernetes.io/os": "linux", "node-role.example.com/system": ""},
		Tolerations: []app.JobToleration{{Key: "dedicated", Operator: "Equal", Value: "system", Effect: "NoSchedule"},
			{Operator: "Exists"}},
		ImagePullSecrets: []string{"regcred", "mirror-cred"},
	}, c.Jobs)
	assert.Equal(t, int64(app.DefaultJobActiveDeadlineSeconds), parse(t).Jobs.ActiveDeadlineSeconds, "the chart's default")
}

// TestJobPodSettingsRefused: every bad pod setting is refused with the flag it came from.
func TestJobPodSettingsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, arg, want string
	}{
		{"a deadline below one second", "--jobs-active-deadline-seconds=0", "--jobs-active-deadline-seconds 0 must be at least 1"},
		{"a quantity that does not parse", `--jobs-resources={"limits":{"memory":"lots"}}`, `--jobs-resources limits "memory": "lots"`},
		{"a bad resource name", `--jobs-resources={"requests":{"bad name":"1"}}`, `--jobs-resources requests "bad name"`},
		{"a bad node selector key", `--jobs-node-selector={"bad key!":"x"}`, `--jobs-node-selector "bad key!"="x"`},
		{"a bad toleration operator", `--jobs-tolerations=[{"key":"k","operator":"In"}]`, `--jobs-tolerations[0]: operator "In"`},
		{"a bad toleration effect", `--jobs-tolerations=[{"key":"k","effect":"Never"}]`, `--jobs-tolerations[0]: effect "Never"`},
		{"an empty key with Equal", `--jobs-tolerations=[{"value":"v"}]`, "an empty key needs operator Exists"},
		{"a value with Exists", `--jobs-tolerations=[{"key":"k","operator":"Exists","value":"v"}]`, "operator Exists takes no value"},
		{"tolerationSeconds without NoExecute", `--jobs-tolerations=[{"key":"k","operator":"Exists","tolerationSeconds":5}]`,
			"tolerationSeconds needs effect NoExecute"},
		{"a bad Secret name", "--jobs-image-pull-secrets=Reg_Cred", `--jobs-image-pull-secrets "Reg_Cred" is not a valid Secret name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := parse(t, append(append([]string{}, chartArgs...), tc.arg)...).Validate()
			require.ErrorIs(t, err, app.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestJobPodSettingsJSON: a structured flag that is not the expected JSON fails at parse time,
// saying so.
func TestJobPodSettingsJSON(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{
		`--jobs-resources={"requests":{"cpu":"1"},"limit":{}}`, // unknown field
		`--jobs-node-selector=kubernetes.io/os=linux`,          // not JSON
		`--jobs-tolerations={"key":"k"}`,                       // an object, not a list
		`--jobs-resources={"limits":{"memory":true}}`,          // neither a string nor a number
		`--jobs-node-selector={"a":"b"} {"c":"d"}`,             // trailing data
	} {
		var c app.Config
		fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.BindFlags(fs)
		err := fs.Parse([]string{arg})
		require.Error(t, err, arg)
		assert.Contains(t, err.Error(), "not the expected JSON", arg)
	}
}
