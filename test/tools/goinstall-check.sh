#!/usr/bin/env bash
# Installs kubectl-aicr the way a user does,
#   go install github.com/NVIDIA/aicr/cmd/kubectl-aicr@<version>
# from a file-based module proxy that holds this checkout (test/tools/modproxy publishes it at a
# pseudo-version of its content), with every dependency from the configured GOPROXY, outside
# any module, then runs the installed plugin. It fails when the operator's module cannot be
# installed, for example when its go.mod has a replace directive. Run: make
# goinstall-check.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d)
modcache=$(go env GOMODCACHE)
published=$(GOFLAGS=-mod=mod go run ./test/tools/modproxy --dir "${work}/proxy")
module=${published%@*}
version=${published#*@}
cleanup() {
  # The module cache keeps extracted modules read-only: drop this checkout's version from it.
  chmod -R u+w "${work}" "${modcache}/${module}@${version}" 2>/dev/null || true
  rm -rf "${work}" "${modcache}/${module}@${version}" "${modcache}/cache/download/${module}/@v/${version}".*
  sed -i "/^${version}\$/d" "${modcache}/cache/download/${module}/@v/list" 2>/dev/null || true
}
trap cleanup EXIT

upstream=$(go env GOPROXY)
echo "== go install ${module}/cmd/kubectl-aicr@${version} (the checkout from a local module proxy, dependencies from ${upstream})"
(
  cd "${work}"
  # As a user: no main module, no workspace, no -mod flag (go install @version refuses one); the
  # checkout's pseudo-version is in no checksum database.
  GOFLAGS= GOWORK=off GOBIN="${work}/bin" GOPROXY="file://${work}/proxy,${upstream}" GONOSUMDB="${module}" \
    go install "${module}/cmd/kubectl-aicr@${version}"
)
"${work}/bin/kubectl-aicr" --help >/dev/null
# Without a cluster the version command prints the plugin's version, then fails to connect.
got=$(KUBECONFIG="${work}/no-kubeconfig" "${work}/bin/kubectl-aicr" version 2>/dev/null | head -n 1 || true)
if [ "${got}" != "Plugin version: ${version}" ]; then
  echo "goinstall-check: the installed kubectl-aicr printed '${got}', want 'Plugin version: ${version}'" >&2
  exit 1
fi
echo "== installed kubectl-aicr runs: ${got}"
