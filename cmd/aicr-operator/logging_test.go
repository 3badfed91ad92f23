package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"

	"github.com/NVIDIA/aicr/app"
)

// parseOperatorFlags parses args with the operator's flags, as run does.
func parseOperatorFlags(t *testing.T, args ...string) (*logFlags, app.Config, error) {
	t.Helper()
	var cfg app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.BindFlags(fs)
	logs := bindLogFlags(fs)
	return logs, cfg, fs.Parse(args)
}

// freshProcessEnv names the test that inFreshProcess runs in a process of its own.
const freshProcessEnv = "AICR_OPERATOR_FRESH_PROCESS_TEST"

// inFreshProcess runs the calling test alone in a new process of the test binary and reports
// whether the caller is that process (and so should go on). klog's logger is global, and a
// manager an earlier test stopped may still read it from a goroutine of its own
// (controller-runtime's event recorder), so the tests that set it run where no manager ran.
func inFreshProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(freshProcessEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), freshProcessEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: "+t.Name(), "the test ran in its own process")
	return false
}

// TestLogFlags_ControllerRuntimeZapFlagsParse: the operator takes controller-runtime's zap flags
// next to its own, and --zap-log-level wins over the chart's --log-level.
func TestLogFlags_ControllerRuntimeZapFlagsParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		args      []string
		debug, v2 bool
		info      bool
	}{
		{name: "defaults log info", info: true},
		{name: "--log-level debug", args: []string{"--log-level=debug"}, debug: true, info: true},
		{name: "--log-level error", args: []string{"--log-level=error"}},
		{name: "--zap-log-level wins over --log-level", args: []string{"--log-level=error", "--zap-log-level=debug"},
			debug: true, info: true},
		{name: "--zap-log-level takes a verbosity", args: []string{"--zap-log-level=2"}, debug: true, v2: true, info: true},
		{name: "--zap-devel logs debug", args: []string{"--zap-devel"}, debug: true, info: true},
		{name: "--log-level given with --zap-devel wins", args: []string{"--zap-devel", "--log-level=info"}, info: true},
		{name: "every zap flag parses", args: []string{"--zap-encoder=console", "--zap-stacktrace-level=panic",
			"--zap-time-encoding=rfc3339", "--zap-devel=false", "--zap-log-level=info"}, info: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs, cfg, err := parseOperatorFlags(t, tt.args...)
			require.NoError(t, err)
			log := logs.logger(cfg.LogLevel)
			assert.Equal(t, tt.info, log.V(0).Enabled(), "info")
			assert.Equal(t, tt.debug, log.V(1).Enabled(), "debug")
			assert.Equal(t, tt.v2, log.V(2).Enabled(), "V(2)")
		})
	}
}

// TestLogFlags_RefusesBadValues: a zap flag with a value zap does not know stops the operator
// with exit code 2, as any bad flag does.
func TestLogFlags_RefusesBadValues(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--zap-log-level=loud", "--zap-encoder=xml", "--zap-time-encoding=sundial",
		"--zap-stacktrace-level=sometimes"} {
		_, _, err := parseOperatorFlags(t, arg)
		require.Error(t, err, arg)
		assert.Equal(t, 2, run([]string{arg}), arg)
	}
}

// TestSetLogger_RoutesKlogToTheOperatorLogger: client-go's klog messages are written by the
// operator's zap logger, in its JSON format and at its level. In a process of its own: klog's
// logger is global.
func TestSetLogger_RoutesKlogToTheOperatorLogger(t *testing.T) {
	if !inFreshProcess(t) {
		return
	}
	t.Cleanup(klog.ClearLogger)
	for _, tt := range []struct {
		level     string
		wantInfo  bool
		wantError bool
	}{
		{level: "info", wantInfo: true, wantError: true},
		{level: "error", wantError: true},
	} {
		logs, cfg, err := parseOperatorFlags(t, "--zap-encoder=json", "--zap-log-level="+tt.level)
		require.NoError(t, err)
		var buf bytes.Buffer
		logs.opts.DestWriter = &buf
		require.NoError(t, setLogger(logs.logger(cfg.LogLevel), logs.klogVerbosity(cfg.LogLevel)))

		klog.InfoS("leader election lost", "lease", "aicr-operator")
		klog.ErrorS(assert.AnError, "watch failed")

		assert.Equal(t, tt.wantInfo, strings.Contains(buf.String(), `"msg":"leader election lost","lease":"aicr-operator"`),
			"%s: %s", tt.level, buf.String())
		assert.Equal(t, tt.wantError, strings.Contains(buf.String(), `"msg":"watch failed"`), "%s: %s", tt.level, buf.String())
	}
}

// TestSetLogger_KlogVerbosityFollowsTheZapLevel: klog passes on exactly the V-levels the zap
// level prints (logr's V(n) is zap level -n): none above 0 at info, V(1) at debug, up to V(4)
// at --zap-log-level=4, and the chart's --log-level=debug is debug too.
func TestSetLogger_KlogVerbosityFollowsTheZapLevel(t *testing.T) {
	if !inFreshProcess(t) {
		return
	}
	t.Cleanup(klog.ClearLogger)
	for _, tt := range []struct {
		args    []string
		highest int
	}{
		{args: []string{"--zap-log-level=info"}, highest: 0},
		{args: []string{"--zap-log-level=error"}, highest: 0},
		{args: []string{"--zap-log-level=debug"}, highest: 1},
		{args: []string{"--zap-log-level=4"}, highest: 4},
		{args: []string{"--log-level=debug"}, highest: 1},
		{args: []string{"--zap-devel"}, highest: 1},
	} {
		logs, cfg, err := parseOperatorFlags(t, append([]string{"--zap-encoder=json"}, tt.args...)...)
		require.NoError(t, err)
		var buf bytes.Buffer
		logs.opts.DestWriter = &buf
		require.NoError(t, setLogger(logs.logger(cfg.LogLevel), logs.klogVerbosity(cfg.LogLevel)))
		for v := 1; v <= 5; v++ {
			klog.V(klog.Level(v)).InfoS("verbose", "v", v)
		}
		for v := 1; v <= 5; v++ {
			assert.Equal(t, v <= tt.highest, strings.Contains(buf.String(), fmt.Sprintf(`"msg":"verbose","v":%d`, v)),
				"%v: V(%d) in %s", tt.args, v, buf.String())
		}
	}
}
