#!/usr/bin/env bash
# Builds kube-apiserver and etcd for envtest from the Go module proxy,
# caching them outside the repository. Prints the directory holding the binaries.
# Builds only what the cache lacks; safe to run concurrently with itself (per-binary lock).
# K8S_VERSION selects the release: 1.34.4 (the oldest supported, the default) or 1.37.2 (the
# newest stable the proxy serves), each in its own cache directory.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.34.4}"
# The etcd minor each release pins (its build/dependencies.yaml), at its newest patch.
case "${K8S_VERSION}" in
  1.34.*) default_etcd=3.6.16 ;;
  1.37.*) default_etcd=3.7.3 ;;
  *) default_etcd= ;;
esac
ETCD_VERSION="${ETCD_VERSION:-${default_etcd}}"
if [ -z "${ETCD_VERSION}" ]; then
  echo "envtest-bins: no etcd version known for Kubernetes ${K8S_VERSION}: set ETCD_VERSION" >&2
  exit 1
fi
CACHE="${AICR_ENVTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-operator/k8s-${K8S_VERSION}}"
mkdir -p "${CACHE}"

log() { echo "envtest-bins: $*" >&2; }
# shellcheck source=test/tools/build-lib.sh
. "$(dirname "$0")/build-lib.sh"

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
  gobuild "${work}" etcd go.etcd.io/etcd/server/v3
}

build_apiserver() { build_k8s kube-apiserver; }

ensure etcd build_etcd
ensure kube-apiserver build_apiserver
echo "${CACHE}"
