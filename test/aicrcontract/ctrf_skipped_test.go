package aicrcontract_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// skipping returns the simulator's passed validation report with the first n checks skipped
// before running, as AICR writes them: status skipped, the reason in message, extra holding
// only a count.
func skipping(t *testing.T, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(jobexec.Root(), "test", "testdata", "ctrf", "validate-deployment-passed.ctrf.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	results := doc["results"].(map[string]any)
	summary := results["summary"].(map[string]any)
	tests := asList(results["tests"])
	require.GreaterOrEqual(t, len(tests), n)
	for _, test := range tests[:n] {
		entry := test.(map[string]any)
		entry["status"] = "skipped"
		entry["message"] = "skipped by --skip-check"
		entry["extra"] = map[string]any{"skippedNodes": 0}
	}
	summary["passed"] = summary["passed"].(float64) - float64(n)
	summary["skipped"] = float64(n)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// 7.2: a check skipped before it ran is status skipped with its reason in message and only
// counts or enum codes in extra. Every such entry of the reference has that shape; the
// simulator's check container reports it with its own exit code; the operator does not fail a
// run for a skipped check, and does not take a run whose every check was skipped as evidence.
func TestFact7_2_SkippedChecks(t *testing.T) {
	t.Parallel()
	for _, p := range referenceFiles(t, ".json") {
		entry := jsonObject(t, p)
		if entry["status"] != "skipped" {
			continue
		}
		assert.NotEmpty(t, entry["message"], "%s: a skipped check without its reason", p)
		extra, _ := entry["extra"].(map[string]any)
		for k, v := range extra {
			switch v.(type) {
			case float64, string, bool:
			default:
				t.Errorf("%s: extra.%s is %T, not a count or code", p, k, v)
			}
		}
	}

	assert.Equal(t, "skipped", jobexec.CheckStatus(jobexec.CheckExitCode("skipped")))
	assert.NotEqual(t, jobexec.CheckExitCode("failed"), jobexec.CheckExitCode("skipped"))

	assert.NoError(t, domain.JudgeValidationReport(skipping(t, 1)), "a skipped check fails the run")
	var all map[string]any
	require.NoError(t, json.Unmarshal(skipping(t, 1), &all))
	total := len(asList(all["results"].(map[string]any)["tests"]))
	err := domain.JudgeValidationReport(skipping(t, total))
	require.Error(t, err, "a run whose every check was skipped is evidence")
	assert.Contains(t, err.Error(), "none of its")
}
