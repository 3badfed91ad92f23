package jobs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/jobs"
)

func TestNew_RefusesAnImageWithoutDigest(t *testing.T) {
	t.Parallel()
	cfg := jobs.Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system"}
	for _, img := range []string{"ghcr.io/nvidia/aicr:v1.1.0", "ghcr.io/nvidia/aicr@sha256:abc", ""} {
		cfg.Image = img
		_, err := jobs.New(cfg, nil, nil)
		require.ErrorIs(t, err, jobs.ErrImageNotPinned, img)
	}
	cfg.Image = "ghcr.io/nvidia/aicr:v1.1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	_, err := jobs.New(cfg, nil, nil)
	require.NoError(t, err)
}
