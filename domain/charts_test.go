package domain_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// localPlan is targetPlan with a bundle-local chart appended (wrapper).
func localPlan(t *testing.T) *domain.Plan {
	t.Helper()
	b := smallBundle()
	b.Releases = append(b.Releases, ports.BundleRelease{
		Name: "gpu-operator-post", Component: "gpu-operator", Namespace: "gpu-operator", Kind: ports.KindLocal,
		Path: "003-gpu-operator-post", Chart: ports.ChartSource{Name: "gpu-operator-post", Version: "1.0.0"},
		Values: map[string]any{},
	})
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: b})
	require.NoError(t, err)
	return p
}

// TestPublishCharts: upstream charts are mirrored (archive digest recorded),
// local charts pushed as wrappers, every chart pinned by manifest digest
// (PLAN-2, PLAN-3, REG-1).
func TestPublishCharts(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	plan := localPlan(t)
	before := plan.Digest
	wrapper := fstest.MapFS{"Chart.yaml": {Data: []byte("name: gpu-operator-post\nversion: 1.0.0\n")}}
	r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[0].Chart}).
		Return(ports.PinnedChart{ManifestDigest: "sha256:aa", ArchiveDigest: "sha256:a0"}, nil)
	r.reg.MirrorChart(gomock.Any(), ports.UpstreamChart{Chart: plan.Releases[1].Chart}).
		Return(ports.PinnedChart{ManifestDigest: "sha256:bb", ArchiveDigest: "sha256:b0"}, nil)
	r.reg.PushWrapper(gomock.Any(), wrapper).Return(ports.PinnedChart{ManifestDigest: "sha256:cc", ArchiveDigest: "sha256:c0"}, nil)
	var asked []string
	s, err := domain.PublishCharts(context.Background(), p.Registry, plan, func(id string) (fs.FS, error) {
		asked = append(asked, id)
		return wrapper, nil
	}, domain.Publish{})
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Equal(t, []string{"gpu-operator-post"}, asked, "only local charts are read from the bundle")
	for i, want := range []ports.ChartSource{
		{Repository: "https://charts.jetstack.io", Name: "cert-manager", Version: "v1.17.2", ManifestDigest: "sha256:aa", ArchiveDigest: "sha256:a0"},
		{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1", ManifestDigest: "sha256:bb", ArchiveDigest: "sha256:b0"},
		{Name: "gpu-operator-post", Version: "1.0.0", ManifestDigest: "sha256:cc"},
	} {
		assert.Equal(t, want, plan.Releases[i].Chart, plan.Releases[i].ID)
	}
	assert.NotEqual(t, before, plan.Digest, "the manifest digest is part of the plan digest")
	again, err := domain.DesiredStateDigest(plan.Releases)
	require.NoError(t, err)
	assert.Equal(t, again, plan.Digest)
}

// TestPublishCharts_Failures: an outage is transient; a rejected archive, a
// missing upstream chart or an unreadable bundle folder is
// ChartSourceUnsupported; credential errors are their RES-6 reasons.
func TestPublishCharts_Failures(t *testing.T) {
	t.Parallel()
	noLocal := func(string) (fs.FS, error) { return nil, errors.New("no such folder") }
	for _, tc := range []struct {
		name string
		err  error
		want domain.StallReason
	}{
		{"outage", errBoom, ""},
		{"archive rejected", fmt.Errorf("digest mismatch: %w", ports.ErrArchiveRejected), domain.StallChartSourceUnsupported},
		{"upstream chart missing", fmt.Errorf("index: %w", ports.ErrArtifactNotFound), domain.StallChartSourceUnsupported},
		{"credentials stale", fmt.Errorf("token: %w", ports.ErrCredentialsStale), domain.StallRegistryCredentialsStale},
		{"unauthorized", fmt.Errorf("push: %w", ports.ErrUnauthorized), domain.StallUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			r.reg.MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{}, tc.err)
			s, err := domain.PublishCharts(context.Background(), p.Registry, targetPlan(t), noLocal, domain.Publish{})
			if tc.want == "" {
				require.ErrorIs(t, err, tc.err)
				assert.Nil(t, s)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, s)
			assert.Equal(t, tc.want, s.Reason())
			assert.Contains(t, s.Message(), "cert-manager:v1.17.2")
		})
	}
	t.Run("unreadable bundle folder", func(t *testing.T) {
		t.Parallel()
		p, r := newPorts(t)
		r.reg.MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: "sha256:aa"}, nil).Times(2)
		s, err := domain.PublishCharts(context.Background(), p.Registry, localPlan(t), noLocal, domain.Publish{})
		require.NoError(t, err)
		require.NotNil(t, s)
		assert.Equal(t, domain.StallChartSourceUnsupported, s.Reason())
		assert.Contains(t, s.Message(), "no such folder")
	})
}
