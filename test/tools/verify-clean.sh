#!/usr/bin/env bash
# Fails with the given message when the paths have uncommitted changes or untracked files.
set -euo pipefail
msg=$1
shift
changes=$(git status --porcelain --untracked-files=all -- "$@")
if [ -n "${changes}" ]; then
  echo "${changes}" >&2
  git --no-pager diff --stat -- "$@" >&2 || true
  echo "verify: ${msg}" >&2
  exit 1
fi
