package resolver_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/adapters/kube/controller"
	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/mocks"
	"github.com/nvidia/aicr-operator/ports"
)

const pinned = ports.Digest("sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")

// TestResolved_RegistryReasons: chart pinning in the runtime registry maps
// credential problems to their stall reasons and retries a transient outage
// with backoff, saying so (RES-6); a reachable registry pins every upstream
// chart by manifest digest (PLAN-3).
func TestResolved_RegistryReasons(t *testing.T) {
	for _, tc := range []struct {
		name, reason, contains string
		err                    error
	}{
		{"RegistryCredentialsUnavailable", string(domain.StallRegistryCredentialsUnavailable), "registry.example.com/charts/", ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsStale", string(domain.StallRegistryCredentialsStale), "registry.example.com/charts/", ports.ErrCredentialsStale},
		{"Unauthorized", string(domain.StallUnauthorized), "registry.example.com/charts/", ports.ErrUnauthorized},
		{"TransientOutage", controller.ReasonResolving, "retrying after a transient failure", errors.New("connection reset by peer")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := mocks.NewMockRegistry(gomock.NewController(t))
			reg.EXPECT().Resolve(gomock.Any(), gomock.Any()).Return(ports.Digest(""), fmt.Errorf("registry: %w", tc.err)).AnyTimes()
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: reg})
			createRuntime(t, runtimeSpec())
			cond, _ := resolvedWith(t, tc.reason, tc.contains)
			assert.Contains(t, cond.Message, tc.contains)
		})
	}
	t.Run("Pinned", func(t *testing.T) {
		reg := mocks.NewMockRegistry(gomock.NewController(t))
		reg.EXPECT().Resolve(gomock.Any(), gomock.Any()).Return(pinned, nil).AnyTimes()
		f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
		start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: reg})
		createRuntime(t, runtimeSpec())
		_, live := resolved(t, controller.ReasonResolved)
		require.NotEqual(t, wantDigest(t, v1Synthetic), live.Status.CandidatePlanDigest, "pinning is part of the digest")
		stored, err := configdoc.DecodePlan([]byte(planConfigMap(t, live.Status.CandidatePlanDigest).Data[configdoc.PlanKey]))
		require.NoError(t, err)
		for _, r := range stored.Releases {
			if r.Kind == ports.KindUpstream {
				assert.Equal(t, string(pinned), r.Chart.ManifestDigest, r.ID)
			}
		}
	})
}
