package main

import (
	"fmt"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/flux"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

// provideDeploymentEngine selects the engine of the configuration. Argo CD is the only one
// enabled; referencing the Flux stub here keeps it compiled and linked (ENG-5). Validate has
// already refused anything else, so the other cases are a second line of defence.
func provideDeploymentEngine(cfg app.Config, argo *argocd.Engine, fluxEngine *flux.Engine) (ports.DeploymentEngine, error) {
	switch cfg.Engine {
	case app.EngineArgoCD:
		return argo, nil
	case app.EngineFlux:
		return nil, fmt.Errorf("engine %s (%s): %w", cfg.Engine, fluxEngine.Kind(), app.ErrEngineNotEnabled)
	default:
		return nil, fmt.Errorf("engine %q: %w", cfg.Engine, app.ErrEngineUnknown)
	}
}
