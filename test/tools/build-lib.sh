# Shared by envtest-bins.sh and e2e-bins.sh, which source it after setting CACHE (the cache
# directory), K8S_VERSION and log(): builds a binary once into the cache from a throwaway module
# of the Go module proxy.

# ensure NAME BUILDER: runs BUILDER when ${CACHE}/NAME is missing, under a per-name lock, so
# concurrent runs build each binary once.
ensure() {
  local name=$1 builder=$2 lock
  exec {lock}>"${CACHE}/.${name}.lock"
  flock "${lock}"
  if [ ! -e "${CACHE}/${name}" ]; then
    log "building ${name} into ${CACHE} (first run only)"
    local start=${SECONDS}
    "${builder}"
    log "built ${name} in $((SECONDS - start))s"
  fi
  flock -u "${lock}"
}

# gobuild WORK OUT PKG [LDFLAGS]: tidies the throwaway module in WORK and builds PKG into OUT,
# without a symbol table or DWARF (-s -w: a shorter link; panics still print their stacks).
gobuild() {
  local work=$1 out=$2 pkg=$3 ldflags=${4:-}
  (cd "${work}" && GOFLAGS=-mod=mod go mod tidy >/dev/null &&
    GOFLAGS=-mod=mod go build -trimpath -o "${CACHE}/${out}.tmp" -ldflags "-s -w ${ldflags}" "${pkg}")
  mv "${CACHE}/${out}.tmp" "${CACHE}/${out}"
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

# repo_root prints the checkout's root.
repo_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); }

# repo_requires MODULE VERSION succeeds when the operator's own module requires MODULE at VERSION.
repo_requires() {
  [ "$(cd "$(repo_root)" && GOFLAGS=-mod=mod go list -m -f '{{.Version}}' "$1" 2>/dev/null)" = "$2" ]
}

# repo_build OUT PKG LDFLAGS [EDIT...] builds PKG into OUT in the operator's own module, from a
# copy of its go.mod and go.sum (the checkout is untouched) changed by each `go mod edit` flag
# EDIT, with the flags of `go test` (no -trimpath): the packages `make test` compiled at the
# same versions are reused rather than compiled again.
# Callers test it in an `if`, where `set -e` does not apply, so every step's failure is returned.
repo_build() {
  local out=$1 pkg=$2 ldflags=$3 root work edit status=0
  shift 3
  root=$(repo_root) || return
  work=$(mktemp -d) || return
  cp "${root}/go.mod" "${root}/go.sum" "${work}/" || status=$?
  for edit in "$@"; do
    [ "${status}" -eq 0 ] || break
    go mod edit "${edit}" "${work}/go.mod" || status=$?
  done
  if [ "${status}" -eq 0 ]; then
    (cd "${root}" && GOFLAGS=-mod=mod go build -modfile "${work}/go.mod" -o "${CACHE}/${out}.tmp" \
      -ldflags "-s -w ${ldflags}" "${pkg}" && mv "${CACHE}/${out}.tmp" "${CACHE}/${out}") || status=$?
  fi
  rm -rf "${work}" "${CACHE}/${out}.tmp"
  return "${status}"
}

# build_k8s CMD builds k8s.io/kubernetes/cmd/CMD at K8S_VERSION, every staging module pinned to
# the release's v0.x (what the repository's ./staging replaces), stamped with the version. When
# the operator's module is on the same Kubernetes libraries, it is built there (repo_build), so
# the libraries are not compiled twice; should that build fail, in a throwaway module.
build_k8s() {
  local cmd=$1 work staging minor ldflags edits=()
  work=$(mktemp -d)
  staging=$(staging_modules "${work}")
  if [ -z "${staging}" ]; then
    log "no staging modules found in k8s.io/kubernetes v${K8S_VERSION}'s go.mod"
    return 1
  fi
  minor="${K8S_VERSION#1.}"
  minor="${minor%%.*}"
  ldflags="-X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor}"
  if repo_requires k8s.io/client-go "v0.${K8S_VERSION#1.}"; then
    edits=("-require=k8s.io/kubernetes@v${K8S_VERSION}")
    for m in ${staging}; do edits+=("-replace=k8s.io/${m}=k8s.io/${m}@v0.${K8S_VERSION#1.}"); done
    if repo_build "${cmd}" "k8s.io/kubernetes/cmd/${cmd}" "${ldflags}" "${edits[@]}"; then
      rm -rf "${work}"
      return
    fi
    log "${cmd} does not build in the operator's module; building it in a module of its own"
  fi
  {
    printf 'module tools/%s\n\ngo 1.24\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "${cmd}" "${K8S_VERSION}"
    for m in ${staging}; do printf '\tk8s.io/%s => k8s.io/%s v0.%s\n' "$m" "$m" "${K8S_VERSION#1.}"; done
    printf ')\n'
  } >"${work}/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "${cmd}" >"${work}/tools.go"
  gobuild "${work}" "${cmd}" "k8s.io/kubernetes/cmd/${cmd}" "${ldflags}"
}
