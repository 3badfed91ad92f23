package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/nvidia/aicr-operator/domain"
)

// TestAdvance_StepTimeoutPerComponent: a step's deadline is its component's timeout when one
// is set, else the installation's step timeout, else DefaultActionTimeout.
func TestAdvance_StepTimeoutPerComponent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		action     time.Duration
		components map[string]time.Duration
		elapsed    time.Duration
		want       domain.Phase
		wantMsg    string
	}{
		{name: "default: past 15m fails", elapsed: domain.DefaultActionTimeout + time.Second,
			want: domain.PhaseFailed, wantMsg: "not ready within 15m0s"},
		{name: "the installation's step timeout replaces the default", action: time.Hour,
			elapsed: domain.DefaultActionTimeout + time.Second, want: domain.PhaseProgressing},
		{name: "the installation's step timeout fails past it", action: time.Hour,
			elapsed: time.Hour + time.Second, want: domain.PhaseFailed, wantMsg: "not ready within 1h0m0s"},
		{name: "the component's timeout outlasts the installation's", action: time.Hour,
			components: map[string]time.Duration{"cert-manager": 2 * time.Hour},
			elapsed:    time.Hour + time.Second, want: domain.PhaseProgressing},
		{name: "the component's timeout fails past it", action: time.Hour,
			components: map[string]time.Duration{"cert-manager": 2 * time.Hour},
			elapsed:    2*time.Hour + time.Second, want: domain.PhaseFailed, wantMsg: "not ready within 2h0m0s"},
		{name: "a shorter component timeout applies too",
			components: map[string]time.Duration{"cert-manager": 5 * time.Minute},
			elapsed:    5*time.Minute + time.Second, want: domain.PhaseFailed, wantMsg: "not ready within 5m0s"},
		{name: "another component's timeout does not apply",
			components: map[string]time.Duration{"gpu-operator": 2 * time.Hour},
			elapsed:    domain.DefaultActionTimeout + time.Second, want: domain.PhaseFailed, wantMsg: "not ready within 15m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t)
			require.Equal(t, "cert-manager", s.Steps[0].Component)
			cm := ref("cert-manager")
			r.clock.Now().Return(t0.Add(tt.elapsed))
			r.engine.Status(gomock.Any(), cm).Return(written(cm, s.ToPlanDigest, false), nil)
			e := env(t)
			e.ActionTimeout, e.ComponentTimeouts = tt.action, tt.components
			out := advance(t, p, rollout(t, s, inFlight(0, t0)), e)
			assert.Equal(t, tt.want, out.Phase())
			if tt.wantMsg != "" {
				require.NotNil(t, out.Stall)
				assert.Contains(t, out.Stall.Message, tt.wantMsg)
			}
		})
	}
}
