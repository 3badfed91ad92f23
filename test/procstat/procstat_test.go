package procstat_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/procstat"
)

// TestMemoryOfThisProcess: the figures of a running process are read, consistent with each
// other (the peak at least the resident set, its parts within it).
func TestMemoryOfThisProcess(t *testing.T) {
	t.Parallel()
	m, err := procstat.Memory(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, m.VmRSS)
	assert.GreaterOrEqual(t, m.VmHWM, m.VmRSS)
	assert.LessOrEqual(t, m.RssAnon+m.RssFile, m.VmRSS)
	assert.InDelta(t, 1.5, procstat.MiB(3<<19), 1e-9)
}

// TestCPUTimeGrowsWithWork: the CPU time of this process grows while it works, and a process
// that does not exist is an error, not zero.
func TestCPUTimeGrowsWithWork(t *testing.T) {
	before, err := procstat.CPUTime(os.Getpid())
	require.NoError(t, err)
	after := before
	for sum := 0; after == before; sum++ {
		for i := range 1 << 20 {
			sum += i
		}
		after, err = procstat.CPUTime(os.Getpid())
		require.NoError(t, err)
	}
	assert.Greater(t, after, before)
	_, err = procstat.CPUTime(1 << 30)
	assert.Error(t, err)
}

// TestChildFindsTheProcessThisOneStarted: the one child running a command is found by its
// name, and a name no child runs is an error, not another process's ID.
func TestChildFindsTheProcessThisOneStarted(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pid, err := procstat.Child("sleep")
	require.NoError(t, err)
	assert.Equal(t, cmd.Process.Pid, pid)
	_, err = procstat.Child("no-such-command")
	assert.ErrorContains(t, err, `0 child processes named "no-such-command"`)
}
