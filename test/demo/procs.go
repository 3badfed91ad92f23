package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/NVIDIA/aicr/test/e2e/cluster"
)

// start runs bin with args, KUBECONFIG=kubeconfig and SSL_CERT_FILE=caFile (the demo
// registry's certificate), logging to <workdir>/<name>.log.
func start(workdir, name, kubeconfig, caFile, bin string, args ...string) (*cluster.Process, error) {
	p, err := cluster.StartProcess(workdir, name, []string{"KUBECONFIG=" + kubeconfig, "SSL_CERT_FILE=" + caFile}, bin, args...)
	if err != nil {
		return nil, err
	}
	progress("%s running (pid %d, log %s)", name, p.Pid(), p.Log())
	return p, nil
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
