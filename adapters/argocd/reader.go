package argocd

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewStatusReader returns an engine reading the Applications of engine.Namespace as the caller
// of cfg, over a client without a cache that knows only Argo CD's types: for a command that
// reads a few Applications once, by name (kubectl aicr describe, reproduce). With the
// operator's Project and Registry it renders the spec digest of a plan's release as the
// operator does (SpecDigest). Use only its read methods.
func NewStatusReader(cfg *rest.Config, engine Config) (*Engine, error) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("register Argo CD types: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("build Argo CD client: %w", err)
	}
	engine.Reader = nil
	return NewEngine(c, nil, engine), nil
}
