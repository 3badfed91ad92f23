package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// describedRollout is the part of describe -o json|yaml the tests read back.
type describedRollout struct {
	Rollout          string `json:"rollout"`
	RuntimeUID       string `json:"runtimeUID"`
	FromPlanDigest   string `json:"fromPlanDigest"`
	ToPlanDigest     string `json:"toPlanDigest"`
	Deadline         string `json:"deadline"`
	ApprovalRequired bool   `json:"approvalRequired"`
	Approval         *struct {
		ApprovedBy string `json:"approvedBy"`
	} `json:"approval"`
	StartingInventory struct {
		Digest string `json:"digest"`
		Size   string `json:"size"`
	} `json:"startingInventory"`
	Steps []struct {
		Release     string `json:"release"`
		Operation   string `json:"operation"`
		ChangesCRDs bool   `json:"changesCRDs"`
		State       string `json:"state"`
	} `json:"steps"`
}

// TestDescribe_JSONAndYAML: describe -o json and -o yaml print the same document, which parses
// back into what the text shows.
func TestDescribe_JSONAndYAML(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout(), approval: approved()}.create(t)

	j := run(approverUser, "describe", name, "-o", "json")
	y := run(approverUser, "describe", name, "--output=yaml")

	requireOK(t, j)
	requireOK(t, y)
	var fromJSON, fromYAML map[string]any
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &fromJSON))
	require.NoError(t, yaml.Unmarshal([]byte(y.stdout), &fromYAML))
	assert.Equal(t, fromJSON, fromYAML)

	var d describedRollout
	require.NoError(t, yaml.Unmarshal([]byte(y.stdout), &d))
	assert.Equal(t, name, d.Rollout)
	assert.Equal(t, runtimeUID, d.RuntimeUID)
	assert.Equal(t, digestA, d.FromPlanDigest)
	assert.Equal(t, digestB, d.ToPlanDigest)
	assert.Equal(t, "2029-06-02T12:00:00Z", d.Deadline)
	assert.True(t, d.ApprovalRequired)
	require.NotNil(t, d.Approval)
	assert.Equal(t, approverUser, d.Approval.ApprovedBy)
	assert.Equal(t, inventory, d.StartingInventory.Digest)
	assert.Equal(t, "2", d.StartingInventory.Size)
	require.Len(t, d.Steps, 3)
	assert.Equal(t, "gpu-operator", d.Steps[0].Release)
	assert.Equal(t, "Upgrade", d.Steps[0].Operation)
	assert.True(t, d.Steps[0].ChangesCRDs)
	assert.Equal(t, "unknown", d.Steps[0].State)
}

// TestOutput_OtherFormatsRefused: describe and plan refuse an -o other than text, json or
// yaml before doing anything.
func TestOutput_OtherFormatsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"describe", "rollout-3f9a1c0d2b7e4a51-1", "-o", "wide"},
		{"plan", "--bundle", t.TempDir(), "-o", "jsonpath={.rollout}"},
	} {
		r := runAt(now, 0, append(args, "--kubeconfig", "/nonexistent")...)
		requireRefused(t, r, `--output must be "text", "json" or "yaml", not "`+args[len(args)-1]+`"`)
	}
}
