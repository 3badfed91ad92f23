package aicrcontract_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// fact returns the text of FACTS.md statement id, up to the next statement or heading.
func fact(t *testing.T, id string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(referenceDir(), "FACTS.md"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?ms)^` + regexp.QuoteMeta(id) + ` (.*?)(?:\n\d+\.\d+ |\n#)`).FindStringSubmatch(string(raw))
	require.NotNil(t, m, "FACTS.md has no statement %s", id)
	return m[1]
}

// wireCode is the error code AICR writes for the name FACTS.md gives it: ErrCodeUnavailable's
// string is SERVICE_UNAVAILABLE.
func wireCode(name string) string {
	if name == "UNAVAILABLE" {
		return "SERVICE_UNAVAILABLE"
	}
	return name
}

// exitCodes reads FACTS.md 11.1's table of error codes to exit codes.
func exitCodes(t *testing.T) map[string]int {
	t.Helper()
	table, _, _ := strings.Cut(fact(t, "11.1"), "(")
	out := map[string]int{}
	entry := regexp.MustCompile(`^(\d+) ([A-Z_]+(?: / [A-Z_]+)*)$`)
	for _, part := range strings.Split(strings.ReplaceAll(table, "\n", " "), ";") {
		m := entry.FindStringSubmatch(strings.TrimSuffix(strings.TrimSpace(part), "."))
		if m == nil {
			continue
		}
		code, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		for _, name := range strings.Split(m[2], " / ") {
			out[wireCode(name)] = code
		}
	}
	require.GreaterOrEqual(t, len(out), 8, "FACTS.md 11.1 lists the codes: %v", out)
	return out
}

// commandFailed is AICR's --log-json last line for an error of code wrapped by INTERNAL.
func commandFailed(code string) string {
	line, _ := json.Marshal(map[string]any{"msg": "command failed", "error": "[INTERNAL] outer: [" + code + "] cause", "exitCode": 8})
	return string(line)
}

// simulatedFailures are the failures the simulator plays, by what they are.
func simulatedFailures(t *testing.T) map[string]jobexec.Result {
	t.Helper()
	out := map[string]jobexec.Result{}
	s := startStage(t, ports.JobUpgradeCheck)
	out["malformed -o"] = *jobexec.RefusedOutput(withArg(s.job, "-o", "cm://x"))
	out["table to a ConfigMap"] = *jobexec.RefusedOutput(withArg(s.job, "--format", "table"))
	out["failing upgrade check"] = jobexec.UpgradeCheckExit(nil, jobexec.Result{Data: map[string]string{jobs.OutputKey: `{"summary":{"failing":1}}`}})
	out["bundle into the image's directory"] = *jobexec.PrePush(earlierBundlePod())
	_, refused := jobexec.PublishImageRefs(earlierBundlePod(), t.TempDir(), pushed)
	out["image refs into /dev"] = *refused
	out["unknown component"] = bundleRun(t, runtimeWith(override("no-such-component", "a", "1")), fixture(t).Recipe, nil)
	out["agent Job failed"] = *jobexec.AgentWaitResult(agentJobEnded(batchv1.JobFailed), cliVersion)
	out["agent wait timed out"] = *jobexec.AgentWaitResult(agentJobEnded(""), cliVersion)
	return out
}

// agentJobEnded is validate's snapshot agent Job with condition (none: still running).
func agentJobEnded(condition batchv1.JobConditionType) *batchv1.Job {
	job := jobexec.AgentJob(validationNS, runID, pinnedAICR)
	if condition != "" {
		job.Status.Conditions = []batchv1.JobCondition{{Type: condition, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
	}
	return job
}

// 11.1: AICR's exit code per error code. The operator's classification gives a root cause
// wrapped by INTERNAL the category of the code's own exit, and every failure the simulator
// plays exits with the code its error names.
func TestFact11_1_ExitCodes(t *testing.T) {
	t.Parallel()
	codes := exitCodes(t)
	for name, code := range codes {
		want := domain.ClassifyAICRExit(code, "")
		got := domain.ClassifyAICRExit(8, commandFailed(name))
		assert.Equal(t, want.Category, got.Category, "%s (exit %d)", name, code)
		assert.Equal(t, want.Transient, got.Transient, name)
	}
	bracket := regexp.MustCompile(`\[([A-Z_]+)\]`)
	for what, res := range simulatedFailures(t) {
		m := bracket.FindStringSubmatch(res.Log)
		require.NotNil(t, m, "%s: %s", what, res.Log)
		assert.Equal(t, codes[m[1]], int(res.ExitCode), "%s: %s", what, res.Log)
	}
}

// 11.2: with --log-json AICR's last stderr line is {"msg":"command failed","error":"[CODE] …",
// "exitCode":N}. Every Job the operator runs passes --log-json, every failure the simulator
// plays ends with that line, and the operator's classification reads its root cause.
func TestFact11_2_CommandFailedLine(t *testing.T) {
	t.Parallel()
	for _, kind := range outputStages {
		assert.Contains(t, jobexec.AICRArgs(startStage(t, kind).job), "--log-json", kind)
	}
	assert.Contains(t, operatorBundlePod(t).InitContainers[0].Args, "--log-json")
	for what, res := range simulatedFailures(t) {
		lines := strings.Split(strings.TrimSpace(res.Log), "\n")
		var last struct {
			Msg      string `json:"msg"`
			Error    string `json:"error"`
			ExitCode int32  `json:"exitCode"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last), what)
		assert.Equal(t, "command failed", last.Msg, what)
		assert.Regexp(t, `^\[[A-Z_]+\] `, last.Error, what)
		assert.Equal(t, res.ExitCode, last.ExitCode, what)
		classified := domain.ClassifyAICRExit(1, res.Log)
		assert.Equal(t, domain.ClassifyAICRExit(int(res.ExitCode), "").Category, classified.Category,
			"%s: the line, not the exit code, decides", what)
	}
}

// 11.3: validate's wait for its snapshot agent Job ends TIMEOUT, exit 5, when the Job has not
// finished, and INTERNAL, exit 8, when it failed; a completed agent lets the run go on. The
// operator reads the first as AICR's timeout and the second as its internal error.
func TestFact11_3_AgentWaitExitCodes(t *testing.T) {
	t.Parallel()
	codes := exitCodes(t)
	assert.Nil(t, jobexec.AgentWaitResult(agentJobEnded(batchv1.JobComplete), cliVersion), "a completed agent")
	for _, tt := range []struct {
		condition batchv1.JobConditionType
		code      string
		reason    domain.StallReason
	}{
		{"", "TIMEOUT", domain.StallAICRTimeout},
		{batchv1.JobFailed, "INTERNAL", domain.StallAICRInternal},
	} {
		res := jobexec.AgentWaitResult(agentJobEnded(tt.condition), cliVersion)
		require.NotNil(t, res, tt.code)
		assert.Contains(t, fact(t, "11.3"), tt.code+" ("+strconv.Itoa(codes[tt.code])+")")
		assert.Equal(t, codes[tt.code], int(res.ExitCode), tt.code)
		assert.Contains(t, res.Log, `"error":"[`+tt.code+`] `, tt.code)
		exit := domain.ClassifyAICRExit(int(res.ExitCode), res.Log)
		require.NotNil(t, exit.Stall, tt.code)
		assert.Equal(t, tt.reason, exit.Stall.Reason(), tt.code)
		assert.Contains(t, exit.Stall.Message(), "snapshot agent Job aicr-validate-"+runID, "the stall names the agent Job")
	}
}
