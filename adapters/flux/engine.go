// Package flux is the DeploymentEngine over Flux HelmRelease objects
// (github.com/fluxcd/helm-controller/api). It is compiled and linked so it cannot rot, but
// this release does not enable it: configuration refuses engine Flux (app.ErrEngineNotEnabled)
// and the chart schema allows only ArgoCD. Every method returns ports.ErrEngineUnsupported.
//
// An engine author enabling it implements the methods below against HelmRelease objects,
// following the contract in ports/deployment_engine.go, and makes the conformance suite in
// test/enginetest pass.
package flux

import (
	"context"
	"fmt"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/NVIDIA/aicr/ports"
)

// Engine is the Flux DeploymentEngine stub.
type Engine struct {
	scheme *runtime.Scheme
}

var _ ports.DeploymentEngine = (*Engine)(nil)

// NewEngine returns the Flux engine with the HelmRelease types registered in its own scheme,
// so the adapter type-checks against the Flux API it will implement.
func NewEngine() (*Engine, error) {
	scheme := runtime.NewScheme()
	if err := helmv2.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("register flux HelmRelease types: %w", err)
	}
	return &Engine{scheme: scheme}, nil
}

// Kind returns the Flux kind the engine writes, one per plan release.
func (e *Engine) Kind() string {
	return helmv2.HelmReleaseKind
}

func unsupported(op string) error {
	return fmt.Errorf("flux engine %s: %w", op, ports.ErrEngineUnsupported)
}

// Check returns ports.ErrEngineUnsupported.
func (e *Engine) Check(context.Context) error { return unsupported("check") }

// Apply returns ports.ErrEngineUnsupported.
func (e *Engine) Apply(context.Context, ports.ReleaseSpec) error { return unsupported("apply") }

// Adopt returns ports.ErrEngineUnsupported.
func (e *Engine) Adopt(context.Context, ports.ReleaseRef, string, ports.ReleaseOwner) error {
	return unsupported("adopt")
}

// Status returns ports.ErrEngineUnsupported.
func (e *Engine) Status(context.Context, ports.ReleaseRef) (ports.ReleaseStatus, error) {
	return ports.ReleaseStatus{}, unsupported("status")
}

// List returns ports.ErrEngineUnsupported.
func (e *Engine) List(context.Context) ([]ports.ReleaseStatus, error) {
	return nil, unsupported("list")
}

// Specs returns ports.ErrEngineUnsupported.
func (e *Engine) Specs(context.Context) ([]ports.ReleaseSpec, error) {
	return nil, unsupported("specs")
}

// Remove returns ports.ErrEngineUnsupported.
func (e *Engine) Remove(context.Context, ports.ReleaseRef, ports.ReleaseOwner) error {
	return unsupported("remove")
}

// Suspend returns ports.ErrEngineUnsupported.
func (e *Engine) Suspend(context.Context, ports.ReleaseRef, ports.ReleaseOwner, bool) error {
	return unsupported("suspend")
}

// SpecDigest returns ports.ErrEngineUnsupported.
func (e *Engine) SpecDigest(ports.ReleaseSpec) (string, error) {
	return "", unsupported("spec digest")
}

// Unplanned returns ports.ErrEngineUnsupported.
func (e *Engine) Unplanned(context.Context, []ports.ReleaseRef) ([]string, error) {
	return nil, unsupported("unplanned")
}
