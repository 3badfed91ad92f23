package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Process is a child process of a test environment; its output goes to <workdir>/<name>.log.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan error
	// stopped is set once Stop asked the process to end.
	stopped atomic.Bool
}

// StartProcess runs bin with args in its own process group, with env added to this process's
// environment, logging to <workdir>/<name>.log.
func StartProcess(workdir, name string, env []string, bin string, args ...string) (*Process, error) {
	logPath := filepath.Join(workdir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() {
		p.done <- cmd.Wait()
		_ = logFile.Close()
	}()
	return p, nil
}

// Args are the process's command line.
func (p *Process) Args() []string { return p.cmd.Args }

// Pid is the process's ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Log is the path of the process's log file.
func (p *Process) Log() string { return p.log }

// Stop terminates the process group and waits for it, killing it after a grace period.
func (p *Process) Stop() {
	p.stopped.Store(true)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.done <- <-p.done
	}
}

// Exited reports an error when the process ended before Stop asked it to.
func (p *Process) Exited() error {
	if p.stopped.Load() {
		return nil
	}
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited early (%v); see %s", p.name, err, p.log)
	default:
		return nil
	}
}

// handedOut are the ports freePort returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePort returns a TCP port free on loopback when asked and not returned before in this
// process: the kernel hands a port just freed out again, and two processes given the same
// port (Argo CD's Redis and its repo server's metrics) would collide.
func freePort() (string, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 64 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		port := l.Addr().(*net.TCPAddr).Port
		if err := l.Close(); err != nil {
			return "", err
		}
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return strconv.Itoa(port), nil
		}
	}
	return "", errors.New("no loopback port that was not handed out before in 64 tries")
}
