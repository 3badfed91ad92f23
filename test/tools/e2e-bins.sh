#!/usr/bin/env bash
# Builds the end-to-end cluster's binaries from the Go module proxy,
# caching them outside the repository next to the envtest binaries: kube-controller-manager and
# kube-scheduler (the kube-apiserver recipe), kwok, Argo CD's multi-call binary (application
# controller and repo server) and its CRDs, the Helm 4 binary the repo server executes, and a
# miniredis server. Builds only what the cache lacks; safe to run concurrently with itself.
# Prints the directory.
#
# Argo CD v3.3 and later replace gitops-engine with a directory of their own repository, which
# the module proxy cannot serve: Argo CD is built from the tagged release's source archive
# (argo-cd-v${ARGOCD_VERSION}-src.tar.gz), found at ARGOCD_SOURCE or in the workplace's
# shared/thirdparty folder beside the checkout (or beside the repository it was cloned from).
# Its dependencies come from the module proxy.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
ARGOCD_VERSION="${ARGOCD_VERSION:-3.5.1}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
# Argo CD 3.5's own images ship Helm 4 to the repo server.
HELM_VERSION="${HELM_VERSION:-4.3.1}"
MINIREDIS_VERSION="${MINIREDIS_VERSION:-2.40.0}"
CACHE="${AICR_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-operator/e2e-k8s-${K8S_VERSION}-argocd-${ARGOCD_VERSION}-helm-${HELM_VERSION}}"
mkdir -p "${CACHE}"

log() { echo "e2e-bins: $*" >&2; }
# shellcheck source=test/tools/build-lib.sh
. "$(dirname "$0")/build-lib.sh"

build_controller_manager() { build_k8s kube-controller-manager; }
build_scheduler() { build_k8s kube-scheduler; }

# build_kwok builds kwok in the operator's own module (repo_build: its Kubernetes libraries are
# the ones `make test` compiled), or, should that fail, in a throwaway module of its own.
build_kwok() {
  local work
  if repo_build kwok sigs.k8s.io/kwok/cmd/kwok "" "-require=sigs.k8s.io/kwok@v${KWOK_VERSION}"; then
    return
  fi
  log "kwok does not build in the operator's module; building it in a module of its own"
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

# argocd_source prints the path of Argo CD's source archive, or fails saying where it looked.
argocd_source() {
  local name="argo-cd-v${ARGOCD_VERSION}-src.tar.gz" root origin dir
  if [ -n "${ARGOCD_SOURCE:-}" ]; then
    [ -f "${ARGOCD_SOURCE}" ] && { echo "${ARGOCD_SOURCE}"; return; }
    log "ARGOCD_SOURCE=${ARGOCD_SOURCE} is not a file"
    return 1
  fi
  root=$(cd "$(dirname "$0")/../.." && pwd)
  origin=$(git -C "${root}" config --get remote.origin.url 2>/dev/null || true)
  for dir in "${root}" "${origin#file://}"; do
    [ -n "${dir}" ] && [ -d "${dir}" ] || continue
    dir="$(dirname "$(cd "${dir}" && pwd)")/shared/thirdparty"
    [ -f "${dir}/${name}" ] && { echo "${dir}/${name}"; return; }
  done
  log "${name} not found: set ARGOCD_SOURCE to the Argo CD v${ARGOCD_VERSION} source archive"
  return 1
}

# build_argocd builds Argo CD from its source archive with the archive's own go.mod and go.sum
# (its gitops-engine directory included), linking only the two programs the suite runs.
build_argocd() {
  local src work
  src=$(argocd_source)
  work=$(mktemp -d)
  tar -xzf "${src}" -C "${work}"
  if [ "$(cat "${work}/VERSION")" != "${ARGOCD_VERSION}" ]; then
    log "${src} holds Argo CD $(cat "${work}/VERSION"), not ${ARGOCD_VERSION}"
    return 1
  fi
  mkdir -p "${work}/cmd/aicr-e2e"
  write_argocd_main "${work}/cmd/aicr-e2e"
  (cd "${work}" && GOFLAGS=-mod=mod go build -trimpath -o "${CACHE}/argocd.tmp" \
    -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION}" ./cmd/aicr-e2e)
  mv "${CACHE}/argocd.tmp" "${CACHE}/argocd"
  rm -rf "${work}"
}

# build_argocd_crds copies the release's Application and AppProject CRDs into the cache.
build_argocd_crds() {
  local work
  work=$(mktemp -d)
  tar -xzf "$(argocd_source)" -C "${work}" ./manifests/crds/application-crd.yaml ./manifests/crds/appproject-crd.yaml
  rm -rf "${CACHE}/argocd-crds.tmp"
  mv "${work}/manifests/crds" "${CACHE}/argocd-crds.tmp"
  mv "${CACHE}/argocd-crds.tmp" "${CACHE}/argocd-crds"
  rm -rf "${work}"
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

# build_helm builds Helm's command: in the operator's own module when it requires the same Helm
# release (its chart and values tests render with Helm's library; repo_build), else in a
# throwaway module of its own.
build_helm() {
  local work
  if repo_requires helm.sh/helm/v4 "v${HELM_VERSION}"; then
    repo_build helm helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=v${HELM_VERSION}"
    return
  fi
  work=$(mktemp -d)
  printf 'module e2e/helm\n\ngo 1.25\n\nrequire helm.sh/helm/v4 v%s\n' "${HELM_VERSION}" >"${work}/go.mod"
  printf 'package tools\n\nimport _ "helm.sh/helm/v4/cmd/helm"\n' >"${work}/tools.go"
  gobuild "${work}" helm helm.sh/helm/v4/cmd/helm \
    "-X helm.sh/helm/v4/internal/version.version=v${HELM_VERSION}"
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
ensure argocd-crds build_argocd_crds
ensure kwok build_kwok
ensure kwok-stages.yaml build_stages
ensure kwok-stage-crd.yaml build_stage_crd
ensure kube-scheduler build_scheduler
ensure kube-controller-manager build_controller_manager
echo "${CACHE}"
