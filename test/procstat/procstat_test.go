package procstat

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCPUTimeAddsUserAndKernelTicks: utime and stime (fields 14 and 15) are added and turned
// from ticks into time; a command name with spaces and parentheses does not shift the fields.
func TestCPUTimeAddsUserAndKernelTicks(t *testing.T) {
	t.Parallel()
	stat := "4242 (aicr (op) x) S 1 4242 1 0 -1 4194304 99 0 0 0 123 45 0 0 20 0 12 0 1654344 3133440 414\n"
	got, err := cpuTime(stat)
	require.NoError(t, err)
	assert.Equal(t, 1680*time.Millisecond, got)
}

// TestCPUTimeRefusesATruncatedLine: a line without the CPU times is an error, not zero.
func TestCPUTimeRefusesATruncatedLine(t *testing.T) {
	t.Parallel()
	for _, stat := range []string{"4242 (aicr) S 1 4242 1 0 -1 4194304 99 0 0 0 123", "4242 aicr S", "4242 (aicr) S 1 4242 1 0 -1 4194304 99 0 0 0 x 45"} {
		_, err := cpuTime(stat)
		assert.Error(t, err, stat)
	}
}

// TestReadsThisProcess: the readers parse what this machine's /proc gives for this process.
func TestReadsThisProcess(t *testing.T) {
	t.Parallel()
	status, err := Status(os.Getpid(), "VmRSS:", "RssAnon:")
	require.NoError(t, err)
	assert.Greater(t, status["VmRSS:"], int64(1<<20), "in bytes: a Go test binary holds more than 1 MiB")
	assert.GreaterOrEqual(t, status["VmRSS:"], status["RssAnon:"])
	_, err = Status(os.Getpid(), "NoSuchField:")
	require.ErrorContains(t, err, "no NoSuchField:")
	_, err = CPUTime(os.Getpid())
	require.NoError(t, err)
}
