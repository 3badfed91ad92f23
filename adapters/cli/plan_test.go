package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/cli"
	"github.com/NVIDIA/aicr/domain"
)

const fixtures = "../../test/testdata/aicr"

var (
	v1Bundle   = filepath.Join(fixtures, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm")
	fromBundle = filepath.Join(fixtures, "upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic/bundle-helm")
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Bundles = aicr.Reader{}
	cmd := cli.NewRootCommand(o)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestPlan_Text(t *testing.T) {
	t.Parallel()
	out, err := run(t, "plan", "--bundle", v1Bundle)
	require.NoError(t, err)
	assert.Contains(t, out, "Plan:     sha256:417463d45c0fdf0f674982a78762cf3dc3e799ea091d42dac4dbabf2e5e3d33d")
	assert.Regexp(t, `9\s+gpu-operator\s+gpu-operator\s+https://helm.ngc.nvidia.com/nvidia gpu-operator\s+v25.10.1\s+sha256:2a78dc54c971`, out)
	assert.NotContains(t, out, "Transition")
}

func TestPlan_TextWithFrom(t *testing.T) {
	t.Parallel()
	out, err := run(t, "plan", "--from", fromBundle, "--bundle", v1Bundle)
	require.NoError(t, err)
	assert.Contains(t, out, "(approval required)")
	assert.Regexp(t, `1/16\s+Remove\s+kai-scheduler/kai-scheduler-post`, out)
	assert.Regexp(t, `10/16\s+Verify\s+gpu-operator/gpu-operator`, out)
}

type jsonPlan struct {
	DesiredStateDigest string `json:"desiredStateDigest"`
	Releases           []struct {
		Order     int    `json:"order"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		Chart     struct {
			RepoURL string `json:"repoURL"`
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"chart"`
		Values       any    `json:"values"`
		ValuesDigest string `json:"valuesDigest"`
	} `json:"releases"`
	Steps []struct {
		Action  string `json:"action"`
		Release string `json:"release"`
	} `json:"steps"`
}

func decode(t *testing.T, data []byte, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(data, v))
}

func TestPlan_JSONMatchesExpectedReleases(t *testing.T) {
	t.Parallel()
	out, err := run(t, "plan", "--bundle", v1Bundle, "-o", "json")
	require.NoError(t, err)
	var got, want jsonPlan
	decode(t, []byte(out), &got)
	golden, err := os.ReadFile(filepath.Join(v1Bundle, "..", "expected-releases.json"))
	require.NoError(t, err)
	decode(t, golden, &want)
	assert.Equal(t, want.Releases, got.Releases)
	assert.Empty(t, got.Steps)
}

func TestPlan_JSONStepsMatchGoldenDiff(t *testing.T) {
	t.Parallel()
	out, err := run(t, "plan", "--bundle", v1Bundle, "--from", fromBundle, "-o", "json")
	require.NoError(t, err)
	var got, want jsonPlan
	decode(t, []byte(out), &got)
	golden, err := os.ReadFile(filepath.Join(fromBundle, "..", "expected-plan-diff.json"))
	require.NoError(t, err)
	decode(t, golden, &want)
	require.Len(t, got.Steps, len(want.Steps))
	for i, w := range want.Steps {
		if w.Action == "NoOp" {
			w.Action = string(domain.OpVerify)
		}
		assert.Equal(t, w, got.Steps[i])
	}
}

func TestPlan_Errors(t *testing.T) {
	t.Parallel()
	_, err := run(t, "plan")
	require.ErrorContains(t, err, "--bundle is required")
	_, err = run(t, "plan", "--bundle", v1Bundle, "-o", "wide")
	require.ErrorIs(t, err, cli.ErrOutputFormat)
	require.ErrorContains(t, err, `--output must be "text", "json" or "yaml", not "wide"`)

	_, err = run(t, "plan", "--bundle", filepath.Join(fixtures, "eks-h100-ubuntu-training-kubeflow/bundle-helm"))
	var se *domain.StallError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, domain.StallAICRArtifactUnsupported, se.Stall.Reason())
}

func TestRoot_Help(t *testing.T) {
	t.Parallel()
	out, err := run(t, "help")
	require.NoError(t, err)
	assert.Contains(t, out, "plan")
	out, err = run(t, "help", "plan")
	require.NoError(t, err)
	assert.Contains(t, out, "--from")
	assert.Contains(t, out, "kubectl aicr plan --bundle ./bundle-helm")
}
