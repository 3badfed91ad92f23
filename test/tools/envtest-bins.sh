#!/usr/bin/env bash
# Builds kube-apiserver and etcd for envtest from the Go module proxy (DESIGN.md section 3),
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

# staging_modules WORK prints the k8s.io modules the release's go.mod replaces with ./staging.
staging_modules() {
  local gomod
  # Downloaded in the empty WORK, outside any module, so no go.sum is touched.
  gomod=$(cd "$1" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" |
    sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  sed -n 's#^[[:space:]]*k8s.io/\([^ ]*\) => ./staging/.*#\1#p' "${gomod}"
}

build_apiserver() {
  local work staging
  work=$(mktemp -d)
  staging=$(staging_modules "${work}")
  if [ -z "${staging}" ]; then
    log "no staging modules found in k8s.io/kubernetes v${K8S_VERSION}'s go.mod"
    return 1
  fi
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
