# AICR Operator. `make help` lists the targets.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
export GOFLAGS ?= -mod=mod

BIN              := $(CURDIR)/bin
# Tools built from the Go module proxy are cached outside the checkout, next to the envtest and
# end-to-end binaries, so a fresh clone (CI's) does not build them again (golangci-lint: about
# 3 minutes on 2 cores).
TOOLS            := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/aicr-operator/tools
GOLANGCI_VERSION := v2.15.0
VERSION          ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The release's version without the tag's leading v: the image's and the chart's.
RELEASE_VERSION   = $(patsubst v%,%,$(VERSION))
GOLANGCI_LINT    := $(TOOLS)/golangci-lint-$(GOLANGCI_VERSION)
GORELEASER_VERSION := v2.18.2
GORELEASER       := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)
# GoReleaser v2.18 needs Go >= 1.27.1: the go command fetches that toolchain from the module proxy.
GORELEASER_GO    := go1.27.4
# The SBOM generator GoReleaser runs on every binary (sboms in .goreleaser.yaml).
CYCLONEDX_VERSION := v1.10.0
CYCLONEDX_GOMOD  := $(TOOLS)/cyclonedx-gomod-$(CYCLONEDX_VERSION)
# The CA certificates copied into the operator image (Debian's ca-certificates); empty: none.
CA_BUNDLE        ?= /etc/ssl/certs/ca-certificates.crt
CRD_DIR          := charts/aicr-operator/templates/crds
ENVTEST_ASSETS    = $(shell test/tools/envtest-bins.sh)
# The newest stable Kubernetes release the Go module proxy serves; `make test` runs the oldest
# supported one (test/env.K8sVersion, 1.34), `make test-k8s-1.37` the envtest suites on this one.
K8S_NEWEST        := 1.37.2
ENVTEST_NEWEST_ASSETS = $(shell K8S_VERSION=$(K8S_NEWEST) test/tools/envtest-bins.sh)
ALL_PKGS          = $(shell go list ./...)
# The packages whose tests start a control plane (they depend on test/env).
ENVTEST_PKGS      = $(shell go list -test -f '{{if .ForTest}}{{.ForTest}}{{range .Deps}} {{.}}{{end}}{{end}}' ./... | \
	awk '/ github.com\/NVIDIA\/aicr\/test\/env( |$$)/ {print $$1}' | sort -u)
# Nested modules: the tests that need argo-cd/v3, which only builds with every k8s.io module
# pinned by a replace directive, are a module of their own, so the operator's module has no
# replace and `go install .../cmd/kubectl-aicr@<version>` works. test, vet, lint
# and verify-mod cover them too.
NESTED_MODULES   := test/argocdcompat
IN_NESTED         = for m in $(NESTED_MODULES); do (cd $$m && $(1)); done

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
		/^[a-zA-Z_0-9.-]+:.*?##/ { printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: generate
generate: ## Generate deepcopy, mocks and wire_gen.go (go generate + controller-gen object).
	go tool controller-gen object paths=./adapters/kube/api/... paths=./adapters/argocd/api/...
	go generate ./...

.PHONY: manifests
manifests: ## Generate the CRDs into the chart (controller-gen crd) and the digests the operator checks them against.
	go tool controller-gen crd paths=./adapters/kube/api/... output:crd:artifacts:config=$(CRD_DIR)
	go run ./test/tools/crddigest --crds $(CRD_DIR) --out adapters/kube/api/v1alpha1/zz_generated.crd_digests.go

.PHONY: api-docs
api-docs: ## Generate docs/api-reference.md from the API types (crd-ref-docs from the Go module proxy).
	test/tools/api-docs.sh

.PHONY: fmt
fmt: $(GOLANGCI_LINT) ## Format Go code (gofmt, goimports, gci).
	$(GOLANGCI_LINT) fmt

.PHONY: vet
# `make verify` does not run it: golangci-lint's govet runs the same analyzers (and shadow).
vet: ## go vet ./... (and in each nested module).
	go vet ./...
	$(call IN_NESTED,go vet ./...)

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Lint, including the depguard layer rules of the hexagon.
	$(GOLANGCI_LINT) config verify
	$(GOLANGCI_LINT) run ./...
	$(call IN_NESTED,$(GOLANGCI_LINT) run ./...)

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd from the Go module proxy into the cache (once).
	@test/tools/envtest-bins.sh

.PHONY: envtest-k8s-1.37
envtest-k8s-1.37: ## Build kube-apiserver 1.37.2 and etcd 3.7.3 into their own cache directory (once).
	@K8S_VERSION=$(K8S_NEWEST) test/tools/envtest-bins.sh

.PHONY: e2e-tools
e2e-tools: envtest ## Build the end-to-end cluster (controller-manager, scheduler, kwok, Argo CD, helm, redis) into the cache (once).
	@test/tools/e2e-bins.sh >/dev/null

.PHONY: e2e
e2e: e2e-tools ## End-to-end suite with the real Argo CD controllers (test/e2e, the walkthrough with real Argo CD).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -tags e2e -count=1 -timeout 40m -run 'E2E|RealArgoCD|ArgoCDSyncs|Helm4' ./test/e2e/... ./test/demo/

.PHONY: test
# Without -race: the detector roughly doubles the envtest suites' run time and compiles every
# dependency a second time, which a cold CI run on 2 cores cannot afford; `make test-race` runs
# the unit packages (the controllers' own concurrency) under it. test/faults, the longest suite
# (about 3 minutes), is `make test-faults`.
test: ## Unit tests and envtest suites against the module-built kube-apiserver and etcd.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -count=1 -timeout 30m $(filter-out %/test/faults,$(ALL_PKGS))
	$(call IN_NESTED,go test -count=1 ./...)

.PHONY: test-faults
test-faults: ## The fault-injection suite (lost answers, 5xx, 429, killed operators) against kube-apiserver 1.34.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -count=1 -timeout 20m ./test/faults/

# The handover tests in test/demo (files handover*_test.go, build tag handover) run two replicas of the
# real operator binary and kill, stop and continue them and the kube-apiserver process; -v
# prints their figures (lines "handover: ...").
.PHONY: test-handover
test-handover: ## Leader handover and API server freezes: two operator processes, SIGKILL/SIGSTOP, the audit log.
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test -tags handover -count=1 -timeout 20m -run 'Handover' -v ./test/demo/

.PHONY: test-chaos test-chaos-long
# The chaos suite kills the real operator binary with SIGKILL at points a seed chooses through
# the demo's validated transitions (test/demo, TestChaosKills), with the real Argo CD once
# e2e-tools built it. CHAOS_SEEDS overrides the seeds ("1-3,7").
test-chaos: e2e-tools ## The chaos suite's CI run: 3 seeds of kill -9 of the operator (about 5 minutes on 2 cores).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" CHAOS_SEEDS=$(or $(CHAOS_SEEDS),1-3) \
		go test -tags e2e -count=1 -timeout 30m -v -run '^TestChaos' ./test/demo/
test-chaos-long: e2e-tools ## The chaos suite with 30 seeds (about 45 minutes on 2 cores).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" CHAOS_SEEDS=$(or $(CHAOS_SEEDS),1-30) \
		go test -tags e2e -count=1 -timeout 180m -v -run '^TestChaos' ./test/demo/

.PHONY: promtool
promtool: ## Build Prometheus' promtool into the cache (once).
	@test/tools/promtool-bin.sh >/dev/null

.PHONY: test-alerts
test-alerts: promtool ## Evaluate the chart's alert rules against recorded series (promtool test rules).
	$(shell test/tools/promtool-bin.sh) test rules test/alerts/rules_test.yaml

.PHONY: test-race
test-race: ## The unit packages (no control plane) under the race detector.
	go test -race -count=1 $(filter-out $(ENVTEST_PKGS),$(ALL_PKGS))

.PHONY: test-k8s-1.37
# test/faults stays on 1.34 only: it injects faults into the client's transport (lost answers,
# 5xx, 429, killed operators), which the API server's release does not change, and it is the
# longest suite (about 4 minutes).
test-k8s-1.37: ## The envtest suites (the packages that start test/env) against kube-apiserver 1.37.2.
	KUBEBUILDER_ASSETS="$(ENVTEST_NEWEST_ASSETS)" AICR_ENVTEST_K8S=$(K8S_NEWEST) \
		go test -count=1 -v -run TestControlPlaneRunsTheRequestedRelease ./test/env/
	KUBEBUILDER_ASSETS="$(ENVTEST_NEWEST_ASSETS)" AICR_ENVTEST_K8S=$(K8S_NEWEST) \
		go test -count=1 $(filter-out %/test/env %/test/faults,$(ENVTEST_PKGS))

##@ Build

.PHONY: build
build: ## Build the binaries into bin/, the operator's version from git (aicr_operator_build_info).
	go build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/ ./cmd/...

.PHONY: demo
demo: envtest ## Run the operator's main job on a local embedded control plane (DEMO_FLAGS: --pause, --keep, --workdir).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go run ./test/demo run $(DEMO_FLAGS)

.PHONY: release-snapshot release
release-snapshot: GORELEASER_FLAGS := --snapshot --skip=sign
release-snapshot: ## Build the release offline into dist/: kubectl-aicr binaries, archives, SBOMs, checksums, the operator image (OCI layout) and its digest.
release: ## The release of a tag (the release workflow runs it): release-snapshot's files, checksums.txt signed with cosign.
release-snapshot release: $(GORELEASER) $(CYCLONEDX_GOMOD)
	@mkdir -p $(TOOLS)/release-path && ln -sf $(CYCLONEDX_GOMOD) $(TOOLS)/release-path/cyclonedx-gomod
	PATH=$(TOOLS)/release-path:$$PATH SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) COMMIT_DATE=$$(git log -1 --format=%cI) \
		VERSION=$(VERSION) $(GORELEASER) release --clean $(GORELEASER_FLAGS)
	@# The bare binaries the install commands download, next to the other files of the release.
	for bin in dist/kubectl-aicr_*/kubectl-aicr; do \
		platform=$${bin#dist/kubectl-aicr_}; platform=$${platform%/kubectl-aicr}; \
		cp $$bin dist/kubectl-aicr-$$(echo $$platform | cut -d_ -f1)-$$(echo $$platform | cut -d_ -f2); \
	done
	cd dist && sha256sum --check --ignore-missing --quiet checksums.txt
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) go run ./test/tools/imagebuild \
		--binary linux/amd64=$$(ls dist/aicr-operator_linux_amd64*/aicr-operator) \
		--binary linux/arm64=$$(ls dist/aicr-operator_linux_arm64*/aicr-operator) \
		$(if $(CA_BUNDLE),--ca-bundle $(CA_BUNDLE)) \
		--version $(RELEASE_VERSION) --revision $$(git rev-parse HEAD) --out dist/image --digest-file dist/image.digest

.PHONY: release-chart
release-chart: ## Package the chart into dist/ with every image pinned: the operator image release-snapshot built (or OPERATOR_DIGEST), AICR_DIGEST and TESTS_DIGEST.
	go run ./test/tools/chartrelease --version $(RELEASE_VERSION) --out dist \
		--operator-digest $(or $(OPERATOR_DIGEST),$$(cat dist/image.digest)) \
		--aicr-digest "$(AICR_DIGEST)" --tests-digest "$(TESTS_DIGEST)"

##@ Verify

.PHONY: verify
verify: verify-mod verify-gen verify-fmt lint ## Everything CI checks besides tests.

.PHONY: verify-mod
verify-mod: ## go mod tidy leaves go.mod and go.sum unchanged, here and in each nested module.
	go mod tidy
	$(call IN_NESTED,go mod tidy)
	@test/tools/verify-clean.sh "go.mod/go.sum are not tidy: run go mod tidy" go.mod go.sum $(addsuffix /go.mod,$(NESTED_MODULES)) $(addsuffix /go.sum,$(NESTED_MODULES))

.PHONY: verify-gen
verify-gen: generate manifests api-docs ## Generated files are current.
	@test/tools/verify-clean.sh "generated files are out of date: run make generate manifests api-docs" .

.PHONY: goinstall-check
goinstall-check: ## go install kubectl-aicr@<version> as a user does, from a local module proxy of this checkout, and run it.
	@test/tools/goinstall-check.sh

.PHONY: verify-fmt
verify-fmt: fmt ## Formatting leaves no diff.
	@test/tools/verify-clean.sh "Go files are not formatted: run make fmt" .

$(GOLANGCI_LINT):
	@mkdir -p $(TOOLS)/.gobin-lint
	GOBIN=$(TOOLS)/.gobin-lint GOFLAGS= go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv $(TOOLS)/.gobin-lint/golangci-lint $(GOLANGCI_LINT)

$(CYCLONEDX_GOMOD):
	@mkdir -p $(TOOLS)/.gobin-cyclonedx
	GOBIN=$(TOOLS)/.gobin-cyclonedx GOFLAGS= go install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_VERSION)
	mv $(TOOLS)/.gobin-cyclonedx/cyclonedx-gomod $(CYCLONEDX_GOMOD)

$(GORELEASER):
	@mkdir -p $(TOOLS)/.gobin-goreleaser
	GOBIN=$(TOOLS)/.gobin-goreleaser GOFLAGS= GOTOOLCHAIN=$(GORELEASER_GO) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	mv $(TOOLS)/.gobin-goreleaser/goreleaser $(GORELEASER)
