package jobs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/test/sealtest"
)

func TestNew_RefusesAnImageWithoutDigest(t *testing.T) {
	t.Parallel()
	cfg := jobs.Config{Sealer: sealtest.New(), Namespace: "aicr-jobs", OperatorNamespace: "aicr-system"}
	for _, img := range []string{"ghcr.io/nvidia/aicr:v1.1.0", "ghcr.io/nvidia/aicr@sha256:abc", ""} {
		cfg.Image = img
		_, err := jobs.New(cfg, nil, nil)
		require.ErrorIs(t, err, jobs.ErrImageNotPinned, img)
	}
	cfg.Image = "ghcr.io/nvidia/aicr:v1.1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	_, err := jobs.New(cfg, nil, nil)
	require.NoError(t, err)
}

// TestNew_RefusesARunnerWithoutASealer: without the operator's key it could not prove a kept
// result its own.
func TestNew_RefusesARunnerWithoutASealer(t *testing.T) {
	t.Parallel()
	cfg := jobs.Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system",
		Image: "ghcr.io/nvidia/aicr:v1.1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	_, err := jobs.New(cfg, nil, nil)
	require.ErrorContains(t, err, "Sealer")
}
