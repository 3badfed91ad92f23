// Package argocdcompat holds the tests that read the operator's Argo CD objects, chart and
// health checks with Argo CD's own code: argo-cd/v3's API types and gitops-engine's sync
// option, hook and health parsers.
//
// It is a Go module of its own (go.mod beside this file; make test, verify and lint cover it)
// because argo-cd/v3 can only be built with every k8s.io staging module pinned by a replace
// directive, and a module with a replace directive cannot be installed with
// `go install github.com/NVIDIA/aicr/cmd/kubectl-aicr@<version>`. The
// operator's own module therefore has no replace directive and no Argo CD dependency.
package argocdcompat
