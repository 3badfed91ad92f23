#!/usr/bin/env bash
# Builds kube-apiserver and etcd for envtest from the Go module proxy (DESIGN.md section 3),
# caching them outside the repository. Prints the directory holding the binaries.
# Builds only what the cache lacks; safe to run concurrently with itself (per-binary lock).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
CACHE="${AICR_ENVTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-operator/k8s-${K8S_VERSION}}"
mkdir -p "${CACHE}"

log() { echo "envtest-bins: $*" >&2; }

build_etcd() {
  local work
  work=$(mktemp -d)
  cat >"${work}/go.mod" <<MOD
module envtest/etcd

go 1.24

require (
	go.etcd.io/etcd/api/v3 v${ETCD_VERSION}
	go.etcd.io/etcd/client/pkg/v3 v${ETCD_VERSION}
	go.etcd.io/etcd/client/v3 v${ETCD_VERSION}
	go.etcd.io/etcd/pkg/v3 v${ETCD_VERSION}
	go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
)
MOD
  printf 'package tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"${work}/tools.go"
  (cd "${work}" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go build -trimpath -o "${CACHE}/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "${CACHE}/etcd.tmp" "${CACHE}/etcd"
  rm -rf "${work}"
}

build_apiserver() {
  local work staging
  work=$(mktemp -d)
  staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
    cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
    kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
    mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller"
  {
    printf 'module envtest/apiserver\n\ngo 1.24\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "${K8S_VERSION}"
    for m in ${staging}; do printf '\tk8s.io/%s => k8s.io/%s v0.%s\n' "$m" "$m" "${K8S_VERSION#1.}"; done
    printf ')\n'
  } >"${work}/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' >"${work}/tools.go"
  local minor="${K8S_VERSION#1.}"
  minor="${minor%%.*}"
  (cd "${work}" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go build -trimpath -o "${CACHE}/kube-apiserver.tmp" -ldflags "\
-X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} \
-X k8s.io/component-base/version.gitMajor=1 \
-X k8s.io/component-base/version.gitMinor=${minor}" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "${CACHE}/kube-apiserver.tmp" "${CACHE}/kube-apiserver"
  rm -rf "${work}"
}

ensure() {
  local name=$1 builder=$2
  exec {lock}>"${CACHE}/.${name}.lock"
  flock "${lock}"
  if [ ! -x "${CACHE}/${name}" ]; then
    log "building ${name} into ${CACHE} (first run only; etcd ~1 min, kube-apiserver ~8 min on 2 cores)"
    local start=${SECONDS}
    "${builder}"
    log "built ${name} in $((SECONDS - start))s"
  fi
  flock -u "${lock}"
}

ensure etcd build_etcd
ensure kube-apiserver build_apiserver
echo "${CACHE}"
