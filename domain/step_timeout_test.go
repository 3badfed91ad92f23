package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
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
				assert.Contains(t, out.Stall.Message(), tt.wantMsg)
			}
		})
	}
}

// TestAdvance_TimedOutStepSaysWhatTheEngineLastReported (RO-7): a step that never settles fails
// at its action timeout with the engine's last report, so a Degraded release (its workloads
// fail) is told apart from a sync that never finished or an object that is gone.
func TestAdvance_TimedOutStepSaysWhatTheEngineLastReported(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	tests := []struct {
		name    string
		status  func(plan string) ports.ReleaseStatus
		wantMsg string
	}{
		{name: "synced but degraded, with the engine's detail", status: func(plan string) ports.ReleaseStatus {
			st := written(cm, plan, true)
			st.Health, st.Message = ports.HealthDegraded, "Deployment cert-manager/cert-manager exceeded its progress deadline"
			return st
		}, wantMsg: "not ready within 15m0s: the engine last reported synced, health Degraded " +
			"(Deployment cert-manager/cert-manager exceeded its progress deadline)"},
		{name: "a sync that never finished", status: func(plan string) ports.ReleaseStatus { return written(cm, plan, false) },
			wantMsg: "not ready within 15m0s: the engine last reported not synced to the step's revision, health Progressing"},
		{name: "no health reported", status: func(plan string) ports.ReleaseStatus {
			st := written(cm, plan, true)
			st.Health = ""
			return st
		}, wantMsg: "the engine last reported synced, health Unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t)
			r.clock.Now().Return(t0.Add(domain.DefaultActionTimeout + time.Second))
			r.engine.Status(gomock.Any(), cm).Return(tt.status(s.ToPlanDigest), nil)
			out := advance(t, p, rollout(t, s, inFlight(0, t0)), env(t))
			assert.Equal(t, domain.PhaseFailed, out.Phase())
			require.NotNil(t, out.Stall)
			assert.Contains(t, out.Stall.Message(), tt.wantMsg)
		})
	}
}
