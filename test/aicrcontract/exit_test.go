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

	"github.com/nvidia/aicr-operator/adapters/jobs"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
	"github.com/nvidia/aicr-operator/test/jobexec"
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
	return out
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
