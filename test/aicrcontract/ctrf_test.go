package aicrcontract_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// ctrfTestKeys are the keys of a CTRF test entry AICR's validate writes.
var ctrfTestKeys = []string{"name", "status", "duration", "suite", "message", "stdout", "extra", "runtimeProvenance"}

// ctrfStatuses are the statuses a CTRF test entry takes.
var ctrfStatuses = []string{"passed", "failed", "skipped", "pending", "other"}

func assertCTRFTest(t *testing.T, what string, test map[string]any) {
	t.Helper()
	for k := range test {
		assert.Contains(t, ctrfTestKeys, k, what)
	}
	assert.Contains(t, ctrfStatuses, test["status"], what)
	assert.IsType(t, []any{}, test["suite"], "%s: suite is the list of phases", what)
}

// 7.1: the CTRF report's schema; the reference's test entries and every report the simulator
// plays use only its keys and statuses.
func TestFact7_1_CTRFSchema(t *testing.T) {
	t.Parallel()
	entries := referenceFiles(t, "ctrf-test-entry.json")
	require.NotEmpty(t, entries)
	for _, p := range entries {
		assertCTRFTest(t, p, jsonObject(t, p))
	}
	played, err := filepath.Glob(filepath.Join(jobexec.Root(), "test", "testdata", "ctrf", "*.ctrf.json"))
	require.NoError(t, err)
	require.NotEmpty(t, played)
	for _, p := range played {
		doc := jsonObject(t, p)
		for k := range doc {
			assert.Contains(t, []string{"reportFormat", "specVersion", "timestamp", "generatedBy", "results"}, k, p)
		}
		assert.Equal(t, "CTRF", doc["reportFormat"], p)
		results, ok := doc["results"].(map[string]any)
		require.True(t, ok, p)
		for k := range results {
			assert.Contains(t, []string{"tool", "summary", "tests", "environment"}, k, p)
		}
		summary, ok := results["summary"].(map[string]any)
		require.True(t, ok, p)
		for _, k := range []string{"tests", "passed", "failed", "skipped", "pending", "other", "start", "stop"} {
			assert.Contains(t, summary, k, p)
		}
		for _, test := range asList(results["tests"]) {
			entry, ok := test.(map[string]any)
			require.True(t, ok, p)
			assertCTRFTest(t, p, entry)
		}
	}
}

// 2.6: a CTRF report records the tool that wrote it (results.tool.name, the same as
// generatedBy) and its version (results.tool.version); AICR's upgrade-check report records no
// version. Every CTRF report the simulator plays does so, the operator takes a validate output's
// version from results.tool.version, and it reads no version from any of AICR's upgrade reports.
func TestFact2_6_CTRFToolVersion(t *testing.T) {
	t.Parallel()
	played, err := filepath.Glob(filepath.Join(jobexec.Root(), "test", "testdata", "ctrf", "*.ctrf.json"))
	require.NoError(t, err)
	require.NotEmpty(t, played)
	for _, p := range played {
		doc := jsonObject(t, p)
		tool, ok := doc["results"].(map[string]any)["tool"].(map[string]any)
		require.True(t, ok, p)
		assert.Equal(t, "aicr", tool["name"], p)
		assert.Equal(t, doc["generatedBy"], tool["name"], p)
		assert.NotEmpty(t, tool["version"], p)
	}

	s := startStage(t, ports.JobValidate)
	data := s.played(t, fixture(t))
	require.Contains(t, data, "snapshot.json", "validate writes JSON")
	var report map[string]any
	require.NoError(t, json.Unmarshal([]byte(data["snapshot.json"]), &report))
	report["results"].(map[string]any)["tool"].(map[string]any)["version"] = "1.1.7"
	raw, err := json.Marshal(report)
	require.NoError(t, err)
	data["snapshot.json"] = string(raw)
	_, st, err := s.succeed(t, jobexec.OutputLabels(), data)
	require.NoError(t, err)
	assert.Equal(t, "1.1.7", st.AICRVersion, "the version is the report's results.tool.version")

	reports := upgradeReports(t)
	require.NotEmpty(t, reports)
	for p, raw := range reports {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc), p)
		assert.NotContains(t, doc, "version", p)
		assert.NotContains(t, doc, "metadata", p)
		u := startStage(t, ports.JobUpgradeCheck)
		_, st, err := u.succeed(t, jobexec.OutputLabels(), map[string]string{"snapshot.json": string(raw)})
		require.NoError(t, err, p)
		assert.Empty(t, st.AICRVersion, p)
	}
}
