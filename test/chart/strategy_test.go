package chart_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDeploymentStrategyFollowsLeaderElection (OPS-2): without leader election nothing keeps
// two operators from writing at once, so an update stops the old Pod before it starts the new
// one (Recreate) and more than one replica is refused; with it the default rolling update
// starts the new Pod first, a standby until the old one releases the Lease.
func TestDeploymentStrategyFollowsLeaderElection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		sets         map[string]any
		wantStrategy string
	}{
		{"leader election on (default)", map[string]any{}, ""},
		{"two replicas with leader election", map[string]any{"operator.replicas": 2}, ""},
		{"leader election off", map[string]any{"operator.leaderElection.enabled": false}, "Recreate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			objs, err := render(withValues(tt.sets))
			require.NoError(t, err)
			d := find(objs, "Deployment", releaseNamespace, "aicr-operator")
			require.NotNil(t, d)
			strategy, _, err := unstructured.NestedString(d.Object, "spec", "strategy", "type")
			require.NoError(t, err)
			assert.Equal(t, tt.wantStrategy, strategy, "spec.strategy.type")
		})
	}
	_, err := render(withValues(map[string]any{"operator.replicas": 2, "operator.leaderElection.enabled": false}))
	assert.ErrorContains(t, err, "operator.replicas above 1 needs operator.leaderElection.enabled")
}
