package chart_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestSchemaDescribesEveryProperty walks values.schema.json, its $defs and array items
// included: every property has a description, which editors and `helm show values` tooling
// show next to the value.
func TestSchemaDescribesEveryProperty(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "values.schema.json"))
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(raw, &schema))
	count := 0
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		for name, child := range props {
			c, _ := child.(map[string]any)
			p := strings.TrimPrefix(path+"."+name, ".")
			count++
			d, _ := c["description"].(string)
			assert.NotEmpty(t, strings.TrimSpace(d), "values.schema.json: %s has a description", p)
			walk(p, c)
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
	}
	walk("", schema)
	defs, _ := schema["$defs"].(map[string]any)
	for name, def := range defs {
		d, _ := def.(map[string]any)
		walk("$defs."+name, d)
	}
	assert.Greater(t, count, 50, "the walk reached the nested properties")
}

// yamlBlock finds the ClusterRuntime the NOTES tell the user to apply (between <<'YAML' and YAML).
var yamlBlock = regexp.MustCompile(`(?s)<<'YAML'[^\n]*\n(.*?)\n\s*YAML\n`)

// TestNotesSayWhatWasInstalledAndWhatToDoNext: NOTES.txt names what the chart installed and
// the next commands, and its ClusterRuntime decodes, strictly, as the API's type, with
// deployment validation matching validation.enabled.
func TestNotesSayWhatWasInstalledAndWhatToDoNext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		values     map[string]any
		validation aicrv1alpha1.DeploymentValidation
		approvers  string
	}{
		{"defaults", requiredValues(), aicrv1alpha1.ValidationDisabled, "none yet"},
		{"every option on", everythingValues(), aicrv1alpha1.ValidationRequired, approverUser},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			notes := renderRelease(t, c.values).Info.Notes
			for _, want := range []string{
				"ClusterRuntime (aicrrt) and RuntimeRollout (aicrro)",
				"the operator Deployment aicr-operator",
				"gpu-operator (components)",
				"aicr-operator-approval",
				"approvers (aicr-operator-approver): " + c.approvers,
				"aicr-operator-metrics",
				"helm test " + releaseName + " -n " + releaseNamespace,
				"kubectl get aicrrt,aicrro -o wide",
				"kubectl wait --for=condition=Ready clusterruntime/cluster",
				"kubectl aicr describe <rollout>",
				"kubectl aicr approve <rollout>",
			} {
				assert.Contains(t, notes, want)
			}
			m := yamlBlock.FindStringSubmatch(notes)
			require.NotNil(t, m, "NOTES carry a ClusterRuntime to apply")
			lines := strings.Split(m[1], "\n")
			indent := len(lines[0]) - len(strings.TrimLeft(lines[0], " "))
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, strings.Repeat(" ", indent))
			}
			var cr aicrv1alpha1.ClusterRuntime
			require.NoError(t, yaml.UnmarshalStrict([]byte(strings.Join(lines, "\n")), &cr))
			assert.Equal(t, aicrv1alpha1.ClusterRuntimeName, cr.Name)
			assert.Equal(t, "ClusterRuntime", cr.Kind)
			assert.Equal(t, aicrv1alpha1.GroupVersion.String(), cr.APIVersion)
			assert.Equal(t, c.validation, cr.Spec.Validation.Deployment)
			assert.NotEmpty(t, cr.Spec.Placement.System.NodeSelector)
			assert.NotEmpty(t, cr.Spec.Placement.Accelerated.NodeSelector)
		})
	}
}
