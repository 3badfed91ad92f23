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

# build_k8s CMD builds k8s.io/kubernetes/cmd/CMD at K8S_VERSION, every staging module pinned to
# the release's v0.x (what the repository's ./staging replaces), stamped with the version.
build_k8s() {
  local cmd=$1 work staging minor
  work=$(mktemp -d)
  staging=$(staging_modules "${work}")
  if [ -z "${staging}" ]; then
    log "no staging modules found in k8s.io/kubernetes v${K8S_VERSION}'s go.mod"
    return 1
  fi
  {
    printf 'module tools/%s\n\ngo 1.24\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "${cmd}" "${K8S_VERSION}"
    for m in ${staging}; do printf '\tk8s.io/%s => k8s.io/%s v0.%s\n' "$m" "$m" "${K8S_VERSION#1.}"; done
    printf ')\n'
  } >"${work}/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "${cmd}" >"${work}/tools.go"
  minor="${K8S_VERSION#1.}"
  minor="${minor%%.*}"
  gobuild "${work}" "${cmd}" "k8s.io/kubernetes/cmd/${cmd}" "\
-X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor}"
}
