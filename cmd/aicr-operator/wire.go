//go:build wireinject

package main

import (
	"context"

	"github.com/google/wire"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/flux"
	"github.com/NVIDIA/aicr/app"
)

// initialize assembles the operator from its configuration.
func initialize(ctx context.Context, cfg app.Config) (*runner, func(), error) {
	panic(wire.Build(
		provideRestConfig, provideManagerOptions, provideManager, provideClient, provideDiscovery,
		provideAPIReader, provideArgoCDConfig, argocd.NewEngine, flux.NewEngine, provideDeploymentEngine,
		provideClock, provideLiveness, provideAdmissionDigests, provideSealer, provideJobs, provideSnapshotJobs, provideValidationJobs, provideRegistry, provideResolver, provideWorkloads, provideRolloutControllers, provideRetention,
		wire.Struct(new(runner), "*"),
	))
}
