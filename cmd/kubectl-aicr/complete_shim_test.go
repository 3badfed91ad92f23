package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompletionShim: kubectl_complete-aicr is executable and hands its arguments to
// kubectl-aicr __complete unchanged, as kubectl's plugin completion expects.
func TestCompletionShim(t *testing.T) {
	t.Parallel()
	info, err := os.Stat("kubectl_complete-aicr")
	require.NoError(t, err)
	assert.NotZero(t, info.Mode().Perm()&0o111, "the shim is executable")
	shim, err := filepath.Abs("kubectl_complete-aicr")
	require.NoError(t, err)

	// A stand-in kubectl-aicr on PATH that prints its arguments one per line.
	bin := t.TempDir()
	fake := "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "kubectl-aicr"), []byte(fake), 0o755))

	cmd := exec.Command(shim, "describe", "rollout-", "--context", "a b")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "__complete\ndescribe\nrollout-\n--context\na b\n", string(out))
}
