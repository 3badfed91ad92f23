package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	"oras.land/oras-go/v2/registry"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

const (
	pinned  = ports.Digest("sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	archive = ports.Digest("sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	wrapper = ports.Digest("sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc")
)

// TestResolved_RegistryReasons: publishing charts to the runtime registry maps
// credential problems to their stall reasons and retries a transient outage
// with backoff, saying so (RES-6); a reachable registry mirrors every upstream
// chart, pushes every local chart as a wrapper and stores the bundle, and the
// plan pins them all by manifest digest (PLAN-2, PLAN-3, REG-1).
func TestResolved_RegistryReasons(t *testing.T) {
	for _, tc := range []struct {
		name, reason, contains string
		err                    error
	}{
		{"RegistryCredentialsUnavailable", string(domain.StallRegistryCredentialsUnavailable), "publish chart ", ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsStale", string(domain.StallRegistryCredentialsStale), "publish chart ", ports.ErrCredentialsStale},
		{"Unauthorized", string(domain.StallUnauthorized), "publish chart ", ports.ErrUnauthorized},
		{"TransientOutage", domain.ReasonResolving, "retrying after a transient failure", errors.New("connection reset by peer")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := mocks.NewMockRegistry(gomock.NewController(t))
			reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{}, fmt.Errorf("registry: %w", tc.err)).AnyTimes()
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			bundles := serveBundleRegistry(t, pushPass)
			start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: reg, Bundles: bundles.reg}})
			createRuntime(t, runtimeSpec())
			cond, _ := resolvedWith(t, tc.reason, tc.contains)
			assert.Contains(t, cond.Message, tc.contains)
		})
	}
	t.Run("Pinned", func(t *testing.T) {
		reg := mocks.NewMockRegistry(gomock.NewController(t))
		reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: pinned, ArchiveDigest: archive}, nil).AnyTimes()
		reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, chart fs.FS) (ports.PinnedChart, error) {
			_, err := fs.Stat(chart, "Chart.yaml")
			return ports.PinnedChart{ManifestDigest: wrapper}, err
		}).AnyTimes()
		f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
		bundles := serveBundleRegistry(t, pushPass)
		start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: reg, Bundles: bundles.reg}})
		createRuntime(t, runtimeSpec())
		_, live := resolved(t, domain.ReasonResolved)
		require.NotEqual(t, wantDigest(t, v1Synthetic), live.Status.CandidatePlanDigest, "pinning is part of the digest")
		stored, err := configdoc.DecodePlan([]byte(planConfigMap(t, live.Status.CandidatePlanDigest).Data[configdoc.PlanKey]))
		require.NoError(t, err)
		kinds := map[ports.ReleaseKind]int{}
		for _, r := range stored.Releases {
			kinds[r.Kind]++
			if r.Kind == ports.KindUpstream {
				assert.Equal(t, string(pinned), r.Chart.ManifestDigest, r.ID)
				assert.Equal(t, string(archive), r.Chart.ArchiveDigest, r.ID)
			} else {
				assert.Equal(t, string(wrapper), r.Chart.ManifestDigest, r.ID)
				assert.Empty(t, r.Chart.ArchiveDigest, r.ID)
			}
		}
		assert.Positive(t, kinds[ports.KindUpstream])
		assert.Positive(t, kinds[ports.KindLocal], "the fixture has local charts")
		assert.Regexp(t, "^"+regexp.QuoteMeta(bundles.repository())+"@sha256:[a-f0-9]{64}$", stored.BundleRef)
		ref, err := registry.ParseReference(stored.BundleRef)
		require.NoError(t, err, "oras pull takes the bundle reference kubectl aicr reproduce prints")
		assert.Equal(t, strings.TrimPrefix(stored.BundleRef, bundles.repository()+"@"), ref.Reference)
	})
}
