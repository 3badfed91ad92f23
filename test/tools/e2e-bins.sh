#!/usr/bin/env bash
# Builds the end-to-end cluster's binaries from the Go module proxy,
# caching them outside the repository next to the envtest binaries: kube-controller-manager and
# kube-scheduler (the kube-apiserver recipe), kwok, Argo CD's multi-call binary (application
# controller and repo server), the helm binary the repo server executes, and a miniredis server.
# Builds only what the cache lacks; safe to run concurrently with itself. Prints the directory.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
# v3.3 and later replace gitops-engine with a directory of the argo-cd repository, which the
# module proxy cannot serve, and v3.2.12's module does not build: v3.2.11 is the newest that does.
ARGOCD_VERSION="${ARGOCD_VERSION:-3.2.11}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
HELM_VERSION="${HELM_VERSION:-3.19.5}"
MINIREDIS_VERSION="${MINIREDIS_VERSION:-2.40.0}"
CACHE="${AICR_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-operator/e2e-k8s-${K8S_VERSION}-argocd-${ARGOCD_VERSION}}"
mkdir -p "${CACHE}"

log() { echo "e2e-bins: $*" >&2; }
# shellcheck source=test/tools/build-lib.sh
. "$(dirname "$0")/build-lib.sh"

build_controller_manager() { build_k8s kube-controller-manager; }
build_scheduler() { build_k8s kube-scheduler; }

build_kwok() {
  local work
  work=$(mktemp -d)
  printf 'module e2e/kwok\n\ngo 1.26\n\nrequire sigs.k8s.io/kwok v%s\n' "${KWOK_VERSION}" >"${work}/go.mod"
  printf 'package tools\n\nimport _ "sigs.k8s.io/kwok/cmd/kwok"\n' >"${work}/tools.go"
  gobuild "${work}" kwok sigs.k8s.io/kwok/cmd/kwok
}

# build_stages writes kwok's own stages (from its module) into one file: nodes become Ready and
# keep a heartbeat, pods start, become Ready, complete and are deleted. kwok runs with
# --enable-crds=Stage, so the suite creates them as Stage objects (with the Stage CRD, copied
# next to them) and can add one that crash-loops the pods of a release while kwok runs.
build_stages() {
  local dir f
  # Downloaded outside any module, so no go.sum is touched.
  dir=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kwok@v${KWOK_VERSION}" |
    sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  : >"${CACHE}/kwok-stages.yaml.tmp"
  for f in node/fast/node-initialize node/heartbeat/node-heartbeat pod/fast/pod-ready pod/fast/pod-complete \
    pod/fast/pod-delete; do
    { echo "---"; cat "${dir}/kustomize/stage/${f}.yaml"; } >>"${CACHE}/kwok-stages.yaml.tmp"
  done
  install -m 0644 "${dir}/kustomize/crd/bases/kwok.x-k8s.io_stages.yaml" "${CACHE}/kwok-stage-crd.yaml"
  mv "${CACHE}/kwok-stages.yaml.tmp" "${CACHE}/kwok-stages.yaml"
}

build_stage_crd() { build_stages; }

build_argocd() {
  local work dir
  work=$(mktemp -d)
  dir=$(cd "${work}" && GOFLAGS=-mod=mod go mod download -json "github.com/argoproj/argo-cd/v3@v${ARGOCD_VERSION}" |
    sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  {
    printf 'module e2e/argocd\n\ngo 1.25.5\n\nrequire github.com/argoproj/argo-cd/v3 v%s\n\n' "${ARGOCD_VERSION}"
    sed -n '/^replace (/,/^)/p' "${dir}/go.mod"
  } >"${work}/go.mod"
  write_argocd_main "${work}"
  gobuild "${work}" argocd e2e/argocd \
    "-X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION}"
}

# write_argocd_main WORK writes a multi-call main with only the two programs the suite runs, the
# application controller and the repo server, chosen as Argo CD's own main chooses them (the
# binary's name or ARGOCD_BINARY_NAME): Argo CD's ./cmd also links its API server, CLI, Dex,
# notifications and ApplicationSet controller, which the suite never starts and which more than
# double the build.
write_argocd_main() {
  cat >"$1/main.go" <<'GO'
// Command argocd runs Argo CD's application controller or repo server, by ARGOCD_BINARY_NAME.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func init() {
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
}

func main() {
	name := filepath.Base(os.Args[0])
	if val := os.Getenv("ARGOCD_BINARY_NAME"); val != "" {
		name = val
	}
	var command *cobra.Command
	switch name {
	case "argocd-application-controller":
		command = appcontroller.NewCommand()
	case "argocd-repo-server":
		command = reposerver.NewCommand()
	default:
		fmt.Fprintf(os.Stderr, "argocd: %q is not built here (argocd-application-controller, argocd-repo-server)\n", name)
		os.Exit(2)
	}
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
GO
}

build_helm() {
  local work
  work=$(mktemp -d)
  printf 'module e2e/helm\n\ngo 1.24\n\nrequire helm.sh/helm/v3 v%s\n' "${HELM_VERSION}" >"${work}/go.mod"
  printf 'package tools\n\nimport _ "helm.sh/helm/v3/cmd/helm"\n' >"${work}/tools.go"
  gobuild "${work}" helm helm.sh/helm/v3/cmd/helm \
    "-X helm.sh/helm/v3/internal/version.version=v${HELM_VERSION}"
}

# build_redis builds a Redis server for Argo CD from miniredis (no system package): it listens on
# the address of its first argument until it is terminated.
build_redis() {
  local work
  work=$(mktemp -d)
  printf 'module e2e/redis\n\ngo 1.24\n\nrequire github.com/alicebob/miniredis/v2 v%s\n' "${MINIREDIS_VERSION}" >"${work}/go.mod"
  cat >"${work}/main.go" <<'GO'
// Command redis serves miniredis on the loopback address of its first argument until terminated.
package main

import (
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: redis 127.0.0.1:PORT")
	}
	s := miniredis.NewMiniRedis()
	if err := s.StartAddr(os.Args[1]); err != nil {
		log.Fatal(err)
	}
	log.Printf("miniredis listening on %s", s.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	s.Close()
}
GO
  gobuild "${work}" redis e2e/redis
}

ensure redis build_redis
ensure helm build_helm
ensure argocd build_argocd
ensure kwok build_kwok
ensure kwok-stages.yaml build_stages
ensure kwok-stage-crd.yaml build_stage_crd
ensure kube-scheduler build_scheduler
ensure kube-controller-manager build_controller_manager
echo "${CACHE}"
