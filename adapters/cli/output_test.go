package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestPlan_YAMLParsesBackAsTheJSON: -o yaml prints the same document as -o json, with and
// without --from.
func TestPlan_YAMLParsesBackAsTheJSON(t *testing.T) {
	t.Parallel()
	for name, extra := range map[string][]string{"plan": nil, "transition": {"--from", fromBundle}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"plan", "--bundle", v1Bundle}, extra...)
			jsonOut, err := run(t, append(args, "-o", "json")...)
			require.NoError(t, err)
			yamlOut, err := run(t, append(args, "-o", "yaml")...)
			require.NoError(t, err)

			var fromJSON, fromYAML map[string]any
			require.NoError(t, json.Unmarshal([]byte(jsonOut), &fromJSON))
			require.NoError(t, yaml.Unmarshal([]byte(yamlOut), &fromYAML))
			assert.Equal(t, fromJSON, fromYAML)
			assert.NotEmpty(t, fromYAML["releases"])
			var plan jsonPlan
			require.NoError(t, yaml.Unmarshal([]byte(yamlOut), &plan))
			assert.Equal(t, "sha256:417463d45c0fdf0f674982a78762cf3dc3e799ea091d42dac4dbabf2e5e3d33d", plan.DesiredStateDigest)
		})
	}
}
