package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// everyFlag are the flags every command accepts (CLI-1).
var everyFlag = []string{
	"--kubeconfig", "--context", "--as", "--as-group", "-n, --namespace", "--expires", "--reason", "--dir",
	"--bundle", "--from", "-o, --output", "--operator-namespace", "--engine-namespace", "--request-timeout", "--release",
}

func TestHelp_ListsEveryCommandAndFlagWithAnExample(t *testing.T) {
	t.Parallel()
	r := runAt(now, 0, "help")
	requireOK(t, r)
	for _, cmd := range []string{
		"describe", "approve", "revoke", "acknowledge", "override", "reproduce", "plan", "version", "completion", "help",
	} {
		assert.Contains(t, r.stdout, "\n  "+cmd+" ", "command %s", cmd)
	}
	for _, f := range everyFlag {
		assert.Contains(t, r.stdout, f)
	}
	assert.Contains(t, r.stdout, "Examples:\n")
	assert.Contains(t, r.stdout, `kubectl aicr approve rollout-3f9a1c0d2b7e4a51-1 --expires 2h --reason "Maintenance window"`)
}

func TestHelp_EveryCommandListsEveryFlagWithAnExample(t *testing.T) {
	t.Parallel()
	examples := map[string]string{
		"describe":    "kubectl aicr describe rollout-3f9a1c0d2b7e4a51-1",
		"approve":     `kubectl aicr approve rollout-3f9a1c0d2b7e4a51-1 --expires 2h --reason "Maintenance window"`,
		"revoke":      `kubectl aicr revoke rollout-3f9a1c0d2b7e4a51-1 --reason "Training job not checkpointed"`,
		"acknowledge": "kubectl aicr acknowledge rollout-3f9a1c0d2b7e4a51-1",
		"override":    `kubectl aicr override rollout-3f9a1c0d2b7e4a51-1 --reason "job checkpointed"`,
		"reproduce":   `kubectl aicr reproduce "sha256:<digest>"`,
		"plan":        "kubectl aicr plan --bundle ./bundle-helm",
	}
	for cmd, example := range examples {
		for _, args := range [][]string{{cmd, "--help"}, {"help", cmd}} {
			r := runAt(now, 0, args...)
			requireOK(t, r)
			assert.Contains(t, r.stdout, "Examples:\n", "%v", args)
			assert.Contains(t, r.stdout, example, "%v", args)
			for _, f := range everyFlag {
				assert.Contains(t, r.stdout, f, "%v lists %s", args, f)
			}
		}
	}
}

func TestFlags_EveryCommandAcceptsEveryFlagBeforeOrAfterTheName(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)
	unused := []string{"--expires", "1h", "--reason", "not used by describe", "--dir", t.TempDir(), "--operator-namespace", operatorNS}

	after := run(approverUser, append([]string{"describe", name}, unused...)...)
	before := runAt(now, 0, append(append([]string{"--kubeconfig", kubeconfig, "--as", approverUser}, unused...),
		"describe", name)...)

	requireOK(t, after)
	requireOK(t, before)
	assert.Equal(t, after.stdout, before.stdout)
	assert.Contains(t, after.stdout, "Rollout:            "+name+"\n")
}
