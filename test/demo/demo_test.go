package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary play the simulators: the walkthrough starts them as
// `<this executable> kubelet-simulator|argocd-simulator ...` in their own processes.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasSuffix(os.Args[1], "-simulator") {
		if run(os.Args[1:]) != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDemoWalkthrough runs what `make demo` runs, without the pauses: a local control
// plane, the chart's objects, the real operator binary as its ServiceAccount, both simulators,
// then the initial install, an override change, a rollout awaiting approval, kubectl aicr
// describe and approve as an approver, and the approved rollout.
func TestDemoWalkthrough(t *testing.T) {
	text := walkthrough(t, "stand-in", 6*time.Minute)
	assert.Contains(t, text, "Start the simulators")
	// The walkthrough prints every step message the watch sees; a step the fake Argo CD syncs
	// within one status write shows only in the rollout's step table, so assert a sample.
	assert.Regexp(t, `(?m)^\s+rollout rollout-\S+: step \d+/15 \S+ \(Install\)$`, text, "the initial install is followed step by step")
	assert.Regexp(t, `(?m)^\s+rollout rollout-\S+: step \d+/15 \S+ \((Remove|Upgrade)\)$`, text, "the approved rollout is followed step by step")
}

// walkthrough runs the demo with the given --argocd and asserts what every walkthrough shows.
func walkthrough(t *testing.T, argoCD string, timeout time.Duration, args ...string) string {
	t.Helper()
	workdir := t.TempDir()
	var out bytes.Buffer
	console = &lockedWriter{w: io.MultiWriter(&out, testLog{t})}
	err := runDemo(append([]string{"--pause=0", "--keep=false", "--argocd=" + argoCD, "--timeout=" + timeout.String(), "--workdir", workdir}, args...))
	if err != nil {
		logTails(t, workdir)
	}
	require.NoError(t, err)
	text := out.String()
	for _, want := range []string{
		"Start a local control plane", "Install what the chart renders", "Start the operator binary as its ServiceAccount",
		"Apply the ClusterRuntime", "resolved plan sha256:",
		"rolled out: active plan sha256:",
		"Change the overrides", "awaiting approval", "kubectl aicr describe rollout-", "Approval:           required, pending",
		"approved by approver-alice", "$ kubectl get runtimerollouts -o wide",
		"Explore with: export KUBECONFIG=",
	} {
		assert.Contains(t, text, want)
	}
	assert.Regexp(t, `(?m)^\s+\| cluster\s+True\s+RolledOut\s.*rolled out and validated`, text, "the runtime is Ready and validated")
	assert.Len(t, regexp.MustCompile(`(?m)^\s+rollout-\S+: deployment validation passed$`).FindAllString(text, -1), 2,
		"both rollouts are validated")
	assert.Regexp(t, `(?m)^\s+rollout-\S+: 127\.0\.0\.1:\d+/aicr/bundles/cluster@sha256:[0-9a-f]{64} \(sealed by the operator\)$`, text,
		"the evidence is stored in the runtime registry, referenced under the operator's seal")
	assert.Regexp(t, `(?m)^\s+rollout rollout-\S+ AwaitingAcknowledgement: rollout rollout-\S+ awaiting acknowledgement of `+
		`the DRA driver's kubelet plugin restarted after the upgraded GPU Operator's driver became ready`, text,
		"the GPU Operator's upgrade pauses the rollout before the DRA driver's step")
	assert.Regexp(t, `(?m)^\s+\| rollout rollout-\S+: nvidia-dra-driver-gpu acknowledged by approver-alice at `, text,
		"the approver acknowledges the kubelet plugin's restart")
	assert.Regexp(t, `(?m)^\s+\| rollout-\S+\s+Succeeded\s+Succeeded\s+true\s.*approver-alice`, text, "the approved rollout succeeded")
	assert.Regexp(t, `(?m)^\s+\| gpu-operator\.gpu-operator\s+oci://127\.0\.0\.1:\d+/aicr/charts/gpu-operator@sha256:[0-9a-f]{12}…\s+Synced\s+Healthy`, text,
		"an upstream chart is mirrored into the runtime registry and pinned by digest")
	assert.Regexp(t, `(?m)^\s+\| gpu-operator\.gpu-operator-post\s+oci://127\.0\.0\.1:\d+/aicr/wrappers/gpu-operator-post@sha256:`, text,
		"a bundle-local chart is a wrapper chart in the runtime registry")
	assert.NotRegexp(t, `(?m)^\s+\| kube-system\.aws-ebs-csi-driver\s`, text, "the removed release has no Application")
	return text
}

// testLog mirrors the walkthrough into the test log, line by line.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// logTails logs the end of every process log of a failed walkthrough.
func logTails(t testing.TB, workdir string) {
	logs, _ := filepath.Glob(filepath.Join(workdir, "*.log"))
	for _, l := range logs {
		raw, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		t.Logf("--- last lines of %s:\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-40):], "\n"))
	}
}
