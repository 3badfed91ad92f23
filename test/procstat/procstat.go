// Package procstat measures the operator binary in its own process for benchmarks, reading
// Linux's /proc through prometheus/procfs: the CPU time all its threads used and its memory.
package procstat

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// CPUTime is the CPU time every thread of process pid used so far, in user and kernel mode, to
// the 10 ms of a tick.
func CPUTime(pid int) (time.Duration, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(st.CPUTime() * float64(time.Second)), nil
}

// Memory reads the memory figures of process pid from /proc/<pid>/status, in bytes.
func Memory(pid int) (procfs.ProcStatus, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return procfs.ProcStatus{}, err
	}
	st, err := p.NewStatus()
	if err != nil {
		return procfs.ProcStatus{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return st, nil
}

// ReportMemory reports the resident set size, its peak and their anonymous and file-mapped
// parts, in MiB, as benchmark metrics whose names start with prefix.
func ReportMemory(b *testing.B, prefix string, s procfs.ProcStatus) {
	for _, m := range []struct {
		bytes uint64
		unit  string
	}{
		{s.VmRSS, "RSS-MiB"}, {s.VmHWM, "peak-RSS-MiB"}, {s.RssAnon, "anon-RSS-MiB"}, {s.RssFile, "file-RSS-MiB"},
	} {
		b.ReportMetric(MiB(m.bytes), prefix+m.unit)
	}
}

// MiB is bytes in MiB.
func MiB(bytes uint64) float64 { return float64(bytes) / (1 << 20) }

// Child returns the process ID of the one child of this process whose command name is name,
// such as the kube-apiserver a test control plane started: an error when none or several run.
func Child(name string) (int, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return 0, fmt.Errorf("list processes: %w", err)
	}
	var found []int
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // the process ended while the list was read
		}
		if st.PPID == os.Getpid() && st.Comm == name {
			found = append(found, p.PID)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%d child processes named %q, want one: %v", len(found), name, found)
	}
	return found[0], nil
}
