package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/NVIDIA/aicr/test/env"
)

// The releases the environment runs, as test/tools/e2e-bins.sh builds them: Argo CD from its
// tagged release's source archive, and the Helm 4 its repo server executes, as Argo CD 3.5's
// own images ship it.
const (
	ArgoCDVersion = "3.5.1"
	HelmVersion   = "4.3.1"
)

// argoCDCRDDir is the cache's directory of the Argo CD release's CRDs.
const argoCDCRDDir = "argocd-crds"

// ErrNoBinaries is returned when the cache lacks a binary of the environment.
var ErrNoBinaries = errors.New("the end-to-end binaries are not built: run `make e2e-tools` " +
	"(builds them from the Go module proxy into the cache) or set AICR_E2E_CACHE")

// binaries are the files test/tools/e2e-bins.sh leaves in the cache.
var binaries = []string{
	"kube-controller-manager", "kube-scheduler", "kwok", "kwok-stages.yaml", "kwok-stage-crd.yaml", "argocd", argoCDCRDDir, "helm", "redis",
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
		dir = filepath.Join(base, "e2e-k8s-"+env.K8sVersion+"-argocd-"+ArgoCDVersion+"-helm-"+HelmVersion)
	}
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%w (%s missing)", ErrNoBinaries, b)
		}
	}
	return dir, nil
}

// ArgoCDCRDs returns the directory of the Application and AppProject CRDs of the Argo CD
// release the environment runs, or ErrNoBinaries.
func ArgoCDCRDs() (string, error) {
	dir, err := BinDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, argoCDCRDDir), nil
}
