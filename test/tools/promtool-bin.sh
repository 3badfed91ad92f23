#!/usr/bin/env bash
# Builds Prometheus' promtool from the Go module proxy into a cache outside the repository
# (once), for `make test-alerts`, which evaluates the chart's alert rules against recorded
# series. Safe to run concurrently with itself. Prints the binary's path.
set -euo pipefail

PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-0.316.0}"
CACHE="${AICR_PROMTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-operator/promtool-${PROMETHEUS_VERSION}}"
mkdir -p "${CACHE}"

log() { echo "promtool-bin: $*" >&2; }
# shellcheck source=test/tools/build-lib.sh
. "$(dirname "$0")/build-lib.sh"

build_promtool() {
  local work
  work=$(mktemp -d)
  printf 'module tools/promtool\n\ngo 1.26\n\nrequire github.com/prometheus/prometheus v%s\n' "${PROMETHEUS_VERSION}" >"${work}/go.mod"
  printf 'package tools\n\nimport _ "github.com/prometheus/prometheus/cmd/promtool"\n' >"${work}/tools.go"
  gobuild "${work}" promtool github.com/prometheus/prometheus/cmd/promtool
}

ensure promtool build_promtool
echo "${CACHE}/promtool"
