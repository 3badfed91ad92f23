package aicrcontract_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// componentUpgrades is AICR's transition record file, recipes/components/<component>/upgrades.yaml.
type componentUpgrades struct {
	APIVersion  string       `json:"apiVersion"`
	Kind        string       `json:"kind"`
	Component   string       `json:"component"`
	Transitions []transition `json:"transitions"`
}

type transition struct {
	From              string `json:"from"`
	To                string `json:"to"`
	Verdict           string `json:"verdict"`
	VerifiedBy        string `json:"verifiedBy,omitempty"`
	Summary           string `json:"summary,omitempty"`
	Precondition      string `json:"precondition,omitempty"`
	Reversible        *bool  `json:"reversible,omitempty"`
	ReversibleNotes   string `json:"reversibleNotes,omitempty"`
	AffectedResources []struct {
		Group string   `json:"group"`
		Kinds []string `json:"kinds"`
	} `json:"affectedResources,omitempty"`
	StepsByDeployer []struct {
		// Deployers is nil for the remainder group, which serves every deployer no other group names.
		Deployers *[]string              `json:"deployers,omitempty"`
		Steps     []configdoc.RecordStep `json:"steps"`
	} `json:"stepsByDeployer,omitempty"`
	References []string `json:"references,omitempty"`
}

// stepsFor are the record's steps for deployer (8.7): the group that names it, else the
// remainder group; a group with an empty list names no deployer and is no remainder either.
func (tr transition) stepsFor(deployer string) []configdoc.RecordStep {
	var remainder []configdoc.RecordStep
	for _, g := range tr.StepsByDeployer {
		switch {
		case g.Deployers == nil:
			remainder = g.Steps
		case slices.Contains(*g.Deployers, deployer):
			return g.Steps
		}
	}
	return remainder
}

// operatorDeployer is the --deployer the operator's upgrade check passes.
func operatorDeployer(t *testing.T) string {
	t.Helper()
	args := shared.UpgradeCheckArgs("from.yaml", "recipe.yaml", "cm://ns/out")
	i := slices.Index(args, "--deployer")
	require.True(t, i >= 0 && i+1 < len(args), "the upgrade check names no deployer: %v", args)
	return args[i+1]
}

// 8.8: every transition record of the reference decodes strictly into AICR's schema, and the
// row AICR reports for it (its precondition and its steps for the operator's deployer) is read
// by the operator's decoder with the same steps, in order, as a step it must ask about.
func TestFact8_8_TransitionRecords(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(referenceDir(), "recipes", "components", "*", "upgrades.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the reference holds no transition record")
	deployer := operatorDeployer(t)
	for _, p := range files {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var rec componentUpgrades
		require.NoError(t, yaml.UnmarshalStrict(raw, &rec), p)
		assert.Equal(t, "aicr.run/v1beta1", rec.APIVersion, p)
		assert.Equal(t, "ComponentUpgrades", rec.Kind, p)
		assert.Equal(t, filepath.Base(filepath.Dir(p)), rec.Component, p)
		require.NotEmpty(t, rec.Transitions, p)
		for _, tr := range rec.Transitions {
			assert.NotEmpty(t, tr.From, p)
			assert.NotEmpty(t, tr.To, p)
			assert.NotEmpty(t, tr.Verdict, p)
			steps := tr.stepsFor(deployer)
			row := map[string]any{"component": rec.Component, "change": "version", "from": tr.From, "to": tr.To,
				"verdict": tr.Verdict, "reason": "recorded", "summary": tr.Summary, "precondition": tr.Precondition,
				"steps": steps, "failsRun": tr.Verdict != "safe"}
			report, err := json.Marshal(map[string]any{"from": "cluster", "to": "recipe.yaml", "deployer": deployer,
				"components": []any{row}, "summary": map[string]any{"components": 1, "failing": 1}})
			require.NoError(t, err)
			got, err := configdoc.DecodeReport(report)
			require.NoError(t, err, "%s %s -> %s", p, tr.From, tr.To)
			require.Len(t, got.Components, 1)
			assert.Equal(t, steps, got.Components[0].Steps, p)
			assert.Equal(t, tr.Precondition != "" || len(steps) > 0, got.Components[0].HasRecordedSteps(), p)
		}
	}
}
