package configdoc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// upgradeGoldens is AICR v1's own upgrade-check JSON goldens, copied unmodified.
const upgradeGoldens = "../../../test/testdata/aicr/v1-reference/pkg/upgrade/testdata"

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(upgradeGoldens, name))
	require.NoError(t, err)
	return raw
}

// Every JSON report AICR v1 writes decodes, each row with AICR's change and verdict words.
func TestDecodeReport_ReadsEveryAICRGolden(t *testing.T) {
	t.Parallel()
	goldens, err := filepath.Glob(filepath.Join(upgradeGoldens, "*.json.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, path := range goldens {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		r, err := configdoc.DecodeReport(raw)
		require.NoError(t, err, path)
		assert.Len(t, r.Components, r.Summary.Components, path)
	}
}

func TestDecodeReport_KeepsRecordedStepsAndIdentity(t *testing.T) {
	t.Parallel()
	r, err := configdoc.DecodeReport(readGolden(t, "report-mixed.json.golden"))
	require.NoError(t, err)
	assert.Equal(t, "argocd", r.Deployer)
	rows := map[string]configdoc.ComponentRow{}
	for _, row := range r.Components {
		rows[row.Component] = row
	}
	beta := rows["beta-operator"]
	assert.Equal(t, "manual", beta.Verdict)
	assert.Equal(t, "No object is mid-rollout and no node is mid-package.", beta.Precondition)
	require.Len(t, beta.Steps, 1)
	assert.Equal(t, "rename-crs", beta.Steps[0].ID)
	assert.True(t, beta.HasRecordedSteps())
	assert.True(t, beta.FailsRun)
	assert.False(t, rows["alpha-operator"].HasRecordedSteps(), "a safe row with no record steps")
	assert.Empty(t, rows["eta-operator"].Verdict, "a removed row has no verdict")

	id, err := configdoc.DecodeReport(readGolden(t, "report-identity.json.golden"))
	require.NoError(t, err)
	assert.Equal(t, []configdoc.IdentityChange{{Field: "namespace", From: "phi-system", To: "nvidia-phi-system"}},
		id.Components[0].IdentityChanges)
}

func TestDecodeReport_RefusesWhatAICRDoesNotWrite(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]string{
		"not json":                `components:`,
		"no components list":      `{"summary":{"components":0,"failing":0}}`,
		"data after it":           `{"components":[]} {}`,
		"notes as a list":         `{"components":[{"component":"a","change":"version","verdict":"safe","notes":["x"]}]}`,
		"identity as strings":     `{"components":[{"component":"a","change":"identity","verdict":"unknown","identityChanges":["namespace"]}]}`,
		"no component":            `{"components":[{"change":"version","verdict":"safe"}]}`,
		"unknown change":          `{"components":[{"component":"a","change":"upgraded","verdict":"safe"}]}`,
		"version without verdict": `{"components":[{"component":"a","change":"version"}]}`,
		"unknown verdict":         `{"components":[{"component":"a","change":"version","verdict":"fine"}]}`,
		"step without id":         `{"components":[{"component":"a","change":"version","verdict":"manual","steps":[{"description":"d"}]}]}`,
	} {
		_, err := configdoc.DecodeReport([]byte(raw))
		assert.Error(t, err, name)
	}
}

// A later AICR 1.x may add fields: they are ignored, not refused.
func TestDecodeReport_IgnoresAddedFields(t *testing.T) {
	t.Parallel()
	r, err := configdoc.DecodeReport([]byte(`{"components":[{"component":"a","change":"added","to":"1.0.0","rollback":{}}],"future":1}`))
	require.NoError(t, err)
	assert.Equal(t, "1.0.0", r.Components[0].To)
}

func TestContentDigest(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", configdoc.ContentDigest(nil))
}
