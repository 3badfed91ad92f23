package aicrcontract_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// referenceDeployers are the deployers AICR's artifacts name: the bundle layouts it lists per
// deployer (manifests/<deployer>.txt), the deployer of its reports and of its records' step
// groups.
func referenceDeployers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range referenceFiles(t, ".txt") {
		if filepath.Base(filepath.Dir(p)) == "manifests" {
			out = append(out, strings.TrimSuffix(filepath.Base(p), ".txt"))
		}
	}
	for name, raw := range upgradeReports(t) {
		if d, ok := parseReport(t, name, raw).top["deployer"].(string); ok {
			out = append(out, d)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// 8.1: upgrade-check takes --from (required), --to, --deployer (validated), --fail-on-error,
// -o and --format, whose default is a table. The operator's upgrade-check names both recipes,
// a deployer AICR's artifacts name, --format json and --fail-on-error=false, and writes to its
// output ConfigMap; the simulator plays those arguments to a report.
func TestFact8_1_UpgradeCheckFlags(t *testing.T) {
	t.Parallel()
	s := startStage(t, ports.JobUpgradeCheck)
	args := jobexec.AICRArgs(s.job)
	assert.Equal(t, "upgrade-check", args[1])
	for _, flag := range []string{"--from", "--to", "--deployer", "--format", "-o"} {
		assert.NotEmpty(t, argValueOf(args, flag), flag)
	}
	assert.Contains(t, referenceDeployers(t), argValueOf(args, "--deployer"))
	assert.Equal(t, "json", argValueOf(args, "--format"), "the default table cannot go to a ConfigMap")
	assert.Contains(t, args, "--fail-on-error=false")
	assert.True(t, strings.HasPrefix(argValueOf(args, "-o"), "cm://"))
	res := fixture(t).Behavior()(s.job, nil)
	assert.Equal(t, int32(0), res.ExitCode, res.Log)
	assert.NotEmpty(t, res.Data[jobs.OutputKey])
}

// 8.2: the report is written first; with --fail-on-error (the default) and a failing row the
// command then fails with CONFLICT, exit 2, and with --fail-on-error=false it exits 0. Over
// every AICR report the simulator ends so, and the operator, which passes
// --fail-on-error=false, gets exit 0 and the report whatever its verdicts.
func TestFact8_2_UpgradeCheckExit(t *testing.T) {
	t.Parallel()
	operator := jobexec.AICRArgs(startStage(t, ports.JobUpgradeCheck).job)
	strict := slices.DeleteFunc(slices.Clone(operator), func(a string) bool { return strings.HasPrefix(a, "--fail-on-error") })
	failingSeen := false
	for name, raw := range upgradeReports(t) {
		var report struct {
			Summary struct {
				Failing int `json:"failing"`
			} `json:"summary"`
		}
		require.NoError(t, json.Unmarshal(raw, &report), name)
		played := jobexec.Result{Data: map[string]string{jobs.OutputKey: string(raw)}}
		res := jobexec.UpgradeCheckExit(operator, played)
		assert.Equal(t, int32(0), res.ExitCode, name)
		assert.Equal(t, string(raw), res.Data[jobs.OutputKey], name)
		res = jobexec.UpgradeCheckExit(strict, played)
		assert.Equal(t, string(raw), res.Data[jobs.OutputKey], "%s: the report is written first", name)
		if report.Summary.Failing == 0 {
			assert.Equal(t, int32(0), res.ExitCode, name)
			continue
		}
		failingSeen = true
		assert.Equal(t, int32(2), res.ExitCode, name)
		assert.Contains(t, res.Log, "[CONFLICT]", name)
		assert.Equal(t, "InvalidRequest", domain.ClassifyAICRExit(int(res.ExitCode), res.Log).Category, name)
	}
	assert.True(t, failingSeen, "the reference holds a report with failing rows")
}
