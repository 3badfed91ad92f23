package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// completions splits cobra's __complete output into the candidates and the directive line.
func completions(t *testing.T, r result) (candidates []string, directive string) {
	t.Helper()
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.NotEmpty(t, lines)
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// TestCompletion_RolloutNames: every command taking a ROLLOUT completes the names of the
// RuntimeRollouts starting with what was typed, as kubectl_complete-aicr asks it, and
// completes nothing (not even files) after the name.
func TestCompletion_RolloutNames(t *testing.T) {
	needEnv(t)
	t.Parallel()
	first := fixture{ro: newRollout()}.create(t)
	second := fixture{ro: newRollout()}.create(t)
	prefix := "rollout-" + transition + "-"

	for _, cmd := range []string{"describe", "approve", "revoke", "acknowledge", "override"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			names, directive := completions(t, run(approverUser, "__complete", cmd, prefix))
			assert.Contains(t, names, first)
			assert.Contains(t, names, second)
			for _, n := range names {
				assert.True(t, strings.HasPrefix(n, prefix), n)
			}
			assert.Equal(t, ":4", directive, "ShellCompDirectiveNoFileComp")

			names, _ = completions(t, run(approverUser, "__complete", cmd, first))
			assert.Equal(t, []string{first}, names)

			names, directive = completions(t, run(approverUser, "__complete", cmd, first, ""))
			assert.Empty(t, names, "one ROLLOUT only")
			assert.Equal(t, ":4", directive)
		})
	}
}

// TestCompletion_ScriptsForEveryShell: cobra's completion command writes a script per shell.
func TestCompletion_ScriptsForEveryShell(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := runAt(now, 0, "completion", shell)
		requireOK(t, r)
		assert.Contains(t, r.stdout, "kubectl-aicr", shell)
	}
}
