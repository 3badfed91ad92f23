package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is a child process the demo started; its output goes to a log file in the workdir.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan error
}

// start runs bin with args, KUBECONFIG=kubeconfig and SSL_CERT_FILE=caFile (the demo
// registry's certificate), logging to <workdir>/<name>.log.
func start(workdir, name, kubeconfig, caFile, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(workdir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "SSL_CERT_FILE="+caFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() {
		p.done <- cmd.Wait()
		_ = logFile.Close()
	}()
	progress("%s running (pid %d, log %s)", name, cmd.Process.Pid, logPath)
	return p, nil
}

// stop asks the process to terminate and waits for it (killing it after a grace period).
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.done <- <-p.done
	}
}

// exited reports an error when the process ended before the demo asked it to.
func (p *process) exited() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited early (%v); see %s", p.name, err, p.log)
	default:
		return nil
	}
}

// output runs bin with args and KUBECONFIG, returning its combined output.
func output(ctx context.Context, kubeconfig, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %v: %w", filepath.Base(bin), args, err)
	}
	return string(out), nil
}

// build compiles the operator and the plugin into dir.
func build(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+"/", "./cmd/aicr-operator", "./cmd/kubectl-aicr")
	cmd.Dir = repoRoot()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build binaries: %w", err)
	}
	return nil
}
