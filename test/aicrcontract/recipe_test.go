package aicrcontract_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/aicroci"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// backticked returns the `quoted` words of a FACTS.md statement.
func backticked(t *testing.T, id string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(fact(t, id), -1) {
		out = append(out, m[1])
	}
	return out
}

// aicrConfig is AICR v1's AICRConfig document as its loader decodes it strictly: criteria of
// the keys it knows, nodes an integer.
type aicrConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Recipe struct {
			Criteria struct {
				Service     string `json:"service,omitempty"`
				Accelerator string `json:"accelerator,omitempty"`
				Intent      string `json:"intent,omitempty"`
				OS          string `json:"os,omitempty"`
				Platform    string `json:"platform,omitempty"`
				Nodes       int    `json:"nodes,omitempty"`
			} `json:"criteria"`
			Profile       string         `json:"profile,omitempty"`
			Configuration map[string]any `json:"configuration,omitempty"`
		} `json:"recipe"`
	} `json:"spec"`
}

// 12.1: --config takes an AICRConfig of aicr.run/v1beta1, decoded strictly, criteria keys
// service, accelerator, intent, os, platform and nodes; --config and --inherit-from take files,
// not cm://. The document the operator writes for a runtime of every criterion it takes
// decodes so, and its recipe Job reads both from its inputs directory.
func TestFact12_1_RecipeConfig(t *testing.T) {
	t.Parallel()
	cr := &aicrv1alpha1.ClusterRuntime{Spec: jobexec.FixtureRuntimeSpec()}
	raw, err := shared.AICRConfig(cr)
	require.NoError(t, err)
	var doc aicrConfig
	require.NoError(t, yaml.UnmarshalStrict(raw, &doc), string(raw))
	assert.Equal(t, "aicr.run/v1beta1", doc.APIVersion)
	assert.Equal(t, "AICRConfig", doc.Kind)
	c := doc.Spec.Recipe.Criteria
	for key, value := range map[string]string{"service": c.Service, "accelerator": c.Accelerator, "os": c.OS,
		"intent": c.Intent, "platform": c.Platform} {
		assert.NotEmpty(t, value, "the runtime's %s reaches AICR", key)
	}
	assert.Contains(t, backticked(t, "12.1"), "aicr.run/v1beta1")
	args := jobexec.AICRArgs(startStage(t, ports.JobRecipe).job)
	for _, flag := range []string{"--config", "--inherit-from"} {
		v := argValueOf(args, flag)
		assert.True(t, strings.HasPrefix(v, ports.JobInputsDir+"/"), "%s %q is a file of the Job's inputs", flag, v)
	}
}

// 12.2: AICR pushes a bundle as an artifact of type application/vnd.nvidia.aicr.artifact with
// the credentials of $DOCKER_CONFIG, --plain-http for HTTP registries. The simulator pushes that
// type, the operator's registry reader pulls only that type, and the operator's bundle Job
// points DOCKER_CONFIG at its mounted docker config.json; --plain-http is a flag AICR's bundle
// takes.
func TestFact12_2_OCIPush(t *testing.T) {
	t.Parallel()
	types := backticked(t, "12.2")
	assert.Contains(t, types, aicroci.ArtifactType, "the simulator's artifact type")
	assert.Contains(t, types, oci.BundleArtifactType, "the type the operator pulls")
	name := "aicr-bundle-contract"
	job := startedJob(t, jobs.Config{Namespace: "aicr-jobs", CopierImage: jobexec.CopierImage}, ports.JobSpec{Name: name, Kind: ports.JobBundle,
		Args:        []string{"--log-json", "bundle", "-o", "oci://registry.example/bundles/cluster:" + name, "--image-refs", ports.JobImageRefsPath, "--plain-http"},
		Credentials: []byte(`{"auths":{}}`)})
	pod := job.Spec.Template.Spec
	aicr := pod.InitContainers[0]
	var dir string
	for _, env := range aicr.Env {
		if env.Name == "DOCKER_CONFIG" {
			dir = env.Value
		}
	}
	require.NotEmpty(t, dir, "DOCKER_CONFIG")
	mounted := false
	for _, m := range aicr.VolumeMounts {
		for _, v := range pod.Volumes {
			if m.MountPath == dir && v.Name == m.Name && v.Secret != nil {
				mounted = assert.Contains(t, v.Secret.Items, corev1.KeyToPath{Key: corev1.DockerConfigJsonKey, Path: "config.json"})
			}
		}
	}
	assert.True(t, mounted, "the docker config is mounted at DOCKER_CONFIG")
	assert.Contains(t, cliFlags(t, "bundle"), "--plain-http")
}

// cliFlags returns the flags of an AICR command in its CLI surface golden.
func cliFlags(t *testing.T, command string) []string {
	t.Helper()
	line := regexp.MustCompile(`(?m)^flag\s+aicr ` + regexp.QuoteMeta(command) + `\s+(--[a-z-]+)`)
	var out []string
	for _, p := range referenceFiles(t, "cli-surface.golden") {
		for _, m := range line.FindAllStringSubmatch(readString(t, p), -1) {
			out = append(out, m[1])
		}
	}
	require.NotEmpty(t, out, "the CLI surface has no flags of %s", command)
	return out
}
