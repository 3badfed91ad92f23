package aicrcontract_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// simulatedReport is the upgrade-check report the simulator plays.
func simulatedReport(t *testing.T) []byte {
	t.Helper()
	return []byte(jobexec.Fixture{}.SafeUpgradeCheck().Data[jobs.OutputKey])
}

type rawReport struct {
	top  map[string]any
	rows []map[string]any
}

func parseReport(t *testing.T, name string, raw []byte) rawReport {
	t.Helper()
	var top map[string]any
	require.NoError(t, json.Unmarshal(raw, &top), name)
	var rows struct {
		Components []map[string]any `json:"components"`
	}
	require.NoError(t, json.Unmarshal(raw, &rows), name)
	return rawReport{top: top, rows: rows.Components}
}

// aicrReportKeys returns the top-level and row keys AICR's reports use (in any report, in all).
func aicrReportKeys(t *testing.T) (topAny, topAll, rowAny, rowAll map[string]bool) {
	t.Helper()
	var tops, rows []map[string]any
	for name, raw := range upgradeReports(t) {
		r := parseReport(t, name, raw)
		tops = append(tops, r.top)
		rows = append(rows, r.rows...)
	}
	topAny, topAll = keySets(tops)
	rowAny, rowAll = keySets(rows)
	return topAny, topAll, rowAny, rowAll
}

func assertKeys(t *testing.T, what string, doc map[string]any, anyOf, allOf map[string]bool) {
	t.Helper()
	for k := range doc {
		assert.True(t, anyOf[k], "%s: key %q is in no AICR report", what, k)
	}
	for k := range allOf {
		assert.Contains(t, doc, k, "%s: AICR writes %q in every report", what, k)
	}
}

// 8.3: the report's top level is from, to, deployer, source, objectNamesCompared, components,
// summary and atRisk; every AICR report decodes, with one row per counted component.
func TestFact8_3_ReportTopLevel(t *testing.T) {
	t.Parallel()
	documented := []string{"from", "to", "deployer", "source", "objectNamesCompared", "components", "summary", "atRisk"}
	topAny, topAll, _, _ := aicrReportKeys(t)
	for k := range topAny {
		assert.Contains(t, documented, k)
	}
	for name, raw := range upgradeReports(t) {
		r, err := configdoc.DecodeReport(raw)
		require.NoError(t, err, name)
		assert.Len(t, r.Components, r.Summary.Components, name)
	}
	sim := parseReport(t, "simulator", simulatedReport(t))
	assertKeys(t, "simulator report", sim.top, topAny, topAll)
	_, err := configdoc.DecodeReport(simulatedReport(t))
	require.NoError(t, err)
}

// 8.4: a row carries AICR's change and verdict words, notes as one string, identityChanges as
// objects, steps already narrowed (no transitions or stepsByDeployer), rows sorted by name.
func TestFact8_4_ReportRows(t *testing.T) {
	t.Parallel()
	_, _, rowAny, rowAll := aicrReportKeys(t)
	assert.NotContains(t, rowAny, "transitions")
	assert.NotContains(t, rowAny, "stepsByDeployer")
	reports := upgradeReports(t)
	reports["simulator"] = simulatedReport(t)
	for name, raw := range reports {
		r := parseReport(t, name, raw)
		var names []string
		for _, row := range r.rows {
			assertKeys(t, name+" row", row, rowAny, rowAll)
			if notes, ok := row["notes"]; ok {
				assert.IsType(t, "", notes, name)
			}
			for _, id := range asList(row["identityChanges"]) {
				assert.IsType(t, map[string]any{}, id, name)
			}
			names = append(names, row["component"].(string))
		}
		assert.True(t, slices.IsSorted(names), "%s: rows sorted by component", name)
	}
}

// 8.5: the reasons a report gives are AICR's.
func TestFact8_5_Reasons(t *testing.T) {
	t.Parallel()
	known := []string{"recorded", "no-record", "no-boundary-crossed", "multiple-boundaries", "beyond-record-ceiling",
		"downgrade", "not-comparable", "identity-changed", "record-blocks", "undefined-origin"}
	reports := upgradeReports(t)
	reports["simulator"] = simulatedReport(t)
	for name, raw := range reports {
		for _, row := range parseReport(t, name, raw).rows {
			if reason, ok := row["reason"]; ok {
				assert.Contains(t, known, reason, name)
			}
		}
	}
}

// 8.6: only safe, added and removed rows pass the run, and summary.failing counts the rest.
func TestFact8_6_FailsRun(t *testing.T) {
	t.Parallel()
	reports := upgradeReports(t)
	reports["simulator"] = simulatedReport(t)
	for name, raw := range reports {
		r, err := configdoc.DecodeReport(raw)
		require.NoError(t, err, name)
		failing := 0
		for _, row := range r.Components {
			passes := row.Verdict == "safe" || row.Change == "added" || row.Change == "removed"
			assert.Equal(t, !passes, row.FailsRun, "%s: %s", name, row.Component)
			if row.FailsRun {
				failing++
			}
		}
		assert.Equal(t, failing, r.Summary.Failing, name)
	}
}

// 8.7: a row's steps are one ordered list for the chosen deployer, with the precondition
// before them; the operator pauses before the apply of a row that lists either.
func TestFact8_7_StepsNarrowedToTheDeployer(t *testing.T) {
	t.Parallel()
	withSteps := 0
	for name, raw := range upgradeReports(t) {
		r, err := configdoc.DecodeReport(raw)
		require.NoError(t, err, name)
		for _, row := range r.Components {
			assert.Equal(t, row.Precondition != "" || len(row.Steps) > 0, row.HasRecordedSteps(), row.Component)
			if len(row.Steps) > 0 {
				withSteps++
				assert.NotEmpty(t, r.Deployer, "%s: steps come only with --deployer", name)
			}
		}
	}
	assert.Positive(t, withSteps, "the reference holds a row with recorded steps")
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
