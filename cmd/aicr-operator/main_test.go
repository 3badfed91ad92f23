package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/flux"
	"github.com/NVIDIA/aicr/app"
)

func TestProvideDeploymentEngine(t *testing.T) {
	t.Parallel()
	argo := argocd.NewEngine(nil, nil, argocd.Config{})
	fluxEngine, err := flux.NewEngine()
	require.NoError(t, err)

	got, err := provideDeploymentEngine(app.Config{Engine: app.EngineArgoCD}, argo, fluxEngine)
	require.NoError(t, err)
	assert.Same(t, argo, got, "ENG-5 Argo CD is the enabled engine")

	_, err = provideDeploymentEngine(app.Config{Engine: app.EngineFlux}, argo, fluxEngine)
	assert.ErrorIs(t, err, app.ErrEngineNotEnabled, "ENG-5 the Flux stub is linked but refused")

	_, err = provideDeploymentEngine(app.Config{Engine: "Helm"}, argo, fluxEngine)
	assert.ErrorIs(t, err, app.ErrEngineUnknown)
}

func TestRunRefusesAnInvalidConfigurationWithExitCode2(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 2, run([]string{"--engine=Flux"}))
	assert.Equal(t, 2, run([]string{"--no-such-flag"}))
}

func TestProvideArgoCDConfigStripsTheOCIScheme(t *testing.T) {
	t.Parallel()
	c := provideArgoCDConfig(app.Config{EngineNamespace: "argocd", EngineProject: "aicr", RegistryRepository: "oci://registry.example/aicr"}, apiReader{})
	assert.Equal(t, argocd.Config{Namespace: "argocd", Project: "aicr", Registry: "registry.example/aicr"}, c)
}

func TestECRRegionFromTheRegistryHost(t *testing.T) {
	t.Parallel()
	reg, err := ecrRegistry("oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/aicr")
	require.NoError(t, err)
	assert.Equal(t, "eu-west-1", reg.Region)
	_, err = ecrRegistry("oci://ghcr.io/nvidia/aicr")
	assert.ErrorIs(t, err, app.ErrInvalidConfig, "REG-1 the aws provider needs an ECR registry")
}
