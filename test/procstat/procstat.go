// Package procstat reads what Linux's /proc tells about a running process from outside it: its
// memory (/proc/<pid>/status) and the CPU time all its threads used (/proc/<pid>/stat), for
// benchmarks that measure the operator binary in its own process.
package procstat

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ): 100 ticks a second on
// every architecture Linux runs Go on.
const userHZ = 100

// Status reads the kB fields of /proc/<pid>/status named by fields (with their colon, e.g.
// "VmRSS:"), in bytes. It fails when one of them is missing.
func Status(pid int, fields ...string) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	out := map[string]int64{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		field, v, _ := strings.Cut(s.Text(), "\t")
		if !slices.Contains(fields, field) {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/status %s: %w", pid, field, err)
		}
		out[field] = kb << 10
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	for _, field := range fields {
		if _, ok := out[field]; !ok {
			return nil, fmt.Errorf("no %s in /proc/%d/status", field, pid)
		}
	}
	return out, nil
}

// CPUTime is the CPU time every thread of process pid used so far, in user and kernel mode
// (utime and stime of /proc/<pid>/stat), to the 10 ms of a tick.
func CPUTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return cpuTime(string(raw))
}

// cpuTime parses utime and stime out of a /proc/<pid>/stat line. The command name (the second
// field, in parentheses) may hold spaces and parentheses: the fields after it are counted from
// its last closing parenthesis.
func cpuTime(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in /proc stat line %q", stat)
	}
	// After the name: state (field 3) ... utime (field 14), stime (field 15).
	fields := strings.Fields(stat[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc stat line has %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat CPU time %q: %w", f, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
