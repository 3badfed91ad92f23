package aicrcontract_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/test/jobexec"
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
