package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nvidia/aicr-operator/test/env"
)

// ArgoCDVersion is the Argo CD release the environment runs: v3.3 and later replace
// gitops-engine with a directory of their own repository, which the module proxy cannot serve,
// and v3.2.12's module does not build, so v3.2.11 is the newest Argo CD that builds here.
const ArgoCDVersion = "3.2.11"

// ErrNoBinaries is returned when the cache lacks a binary of the environment.
var ErrNoBinaries = errors.New("the end-to-end binaries are not built: run `make e2e-tools` " +
	"(builds them from the Go module proxy into the cache) or set AICR_E2E_CACHE")

// binaries are the files test/tools/e2e-bins.sh leaves in the cache.
var binaries = []string{
	"kube-controller-manager", "kube-scheduler", "kwok", "kwok-stages.yaml", "kwok-stage-crd.yaml", "argocd", "helm", "redis",
}

// BinDir returns the directory holding the environment's binaries, as test/tools/e2e-bins.sh
// names it, or ErrNoBinaries.
func BinDir() (string, error) {
	dir := os.Getenv("AICR_E2E_CACHE")
	if dir == "" {
		base, err := env.CacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "e2e-k8s-"+env.K8sVersion+"-argocd-"+ArgoCDVersion)
	}
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%w (%s missing)", ErrNoBinaries, b)
		}
	}
	return dir, nil
}
