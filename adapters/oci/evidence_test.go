package oci_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func evidenceFixture() ports.Evidence {
	return ports.Evidence{
		PlanDigest:   planDigest,
		Rollout:      "rollout-3f9a1c0d2b7e4a51-1",
		BundleDigest: ports.Digest("sha256:" + hexDigest([]byte("bundle"))),
		Approvals: []ports.EvidenceApproval{{
			ApprovedBy: "alice@example.com", ExpiresAt: time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC),
			Reason: "Maintenance window", Acknowledgements: map[string]string{"nvsentinel": "bob"},
		}},
		Releases: []ports.EvidenceRelease{
			{ID: "gpu-operator", Namespace: "gpu-operator", Revision: "v25.10.1/abc", ChartDigest: ports.Digest("sha256:" + hexDigest([]byte("c1")))},
			{ID: "gpu-operator-post", Namespace: "gpu-operator", Revision: "1.1.0/def"},
		},
		DisruptionOverrides: []ports.EvidenceOverride{{Release: "gpu-operator", OverriddenBy: "alice@example.com",
			OverriddenAt: time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC), Reason: "job checkpointed"}},
		Report: []byte(`{"results":{"summary":{"tests":3,"passed":3,"failed":0}}}`),
	}
}

func TestPushEvidence_ReadBackByTheAnnotationDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, _ := newRegistry(t)
	ev := evidenceFixture()

	annotation, err := reg.PushEvidence(ctx, ev)
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, string(annotation))

	got, err := reg.PullEvidence(ctx, annotation)
	require.NoError(t, err)
	assert.Equal(t, ev, got)

	again, err := reg.PushEvidence(ctx, evidenceFixture())
	require.NoError(t, err)
	assert.Equal(t, annotation, again, "the same evidence yields the same digest")

	other := evidenceFixture()
	other.Report = []byte(`{"results":{"summary":{"tests":3,"passed":2,"failed":1}}}`)
	otherDigest, err := reg.PushEvidence(ctx, other)
	require.NoError(t, err)
	assert.NotEqual(t, annotation, otherDigest)

	for _, d := range []ports.Digest{annotation, otherDigest} {
		tagged, rerr := reg.Resolve(ctx, reg.Base()+"/bundles/cluster:evidence-rollout-3f9a1c0d2b7e4a51-1-"+strings.TrimPrefix(string(d), "sha256:"))
		require.NoError(t, rerr)
		assert.Equal(t, d, tagged, "each evidence keeps its own tag")
	}
}

func TestPullEvidence_ABundleDigestIsNotEvidence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, _ := newRegistry(t)
	_, err := reg.PullEvidence(ctx, ports.Digest("sha256:"+hexDigest([]byte("none"))))
	require.ErrorIs(t, err, ports.ErrArtifactNotFound)

	pc, err := reg.PushEvidence(ctx, ports.Evidence{})
	require.Error(t, err, "plan digest and rollout are required")
	assert.Empty(t, pc)
}
