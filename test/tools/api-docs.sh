#!/usr/bin/env bash
# Generates docs/api-reference.md from the Go types of operator.aicr.run/v1alpha1 with
# github.com/elastic/crd-ref-docs, fetched through the Go module proxy at a pinned version
# (not a tool directive of the main go.mod, so the operator's module graph stays as it is).
# Run from anywhere: make api-docs.
set -euo pipefail

CRD_REF_DOCS_VERSION=v0.3.0

cd "$(dirname "$0")/../.."
GOFLAGS=-mod=mod go run "github.com/elastic/crd-ref-docs@${CRD_REF_DOCS_VERSION}" \
  --source-path=adapters/kube/api/v1alpha1 \
  --renderer=markdown \
  --output-path=docs/api-reference.md \
  --config=docs/crd-ref-docs.yaml
