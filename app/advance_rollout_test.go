package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
)

// TestAdvanceRollout_StopsWhereTheCallerMustPersist: the decisions stop at the first that
// waits, stalls, ends or leaves Pending, so the caller persists it before anything more
// happens (RO-12); a transient error stops them with the decisions made so far.
func TestAdvanceRollout_StopsWhereTheCallerMustPersist(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	spec := domain.RolloutSpec{Name: "rollout-0123456789abcdef-1", RuntimeUID: runtimeUID, ToPlanDigest: "sha256:aa",
		CreatedAt: t0, Deadline: t0.Add(time.Hour)}
	env := domain.Environment{RuntimeUID: runtimeUID, TargetPlanDigest: "sha256:aa"}
	tests := []struct {
		name      string
		spec      func(*domain.RolloutSpec)
		env       func(*domain.Environment)
		engine    func(e *mocks.MockDeploymentEngineMockRecorder)
		phase     domain.Phase
		decisions int
		stall     domain.StallReason
		err       bool
	}{
		{name: "leaving Pending ends it before the first step", phase: domain.PhaseProgressing, decisions: 1,
			engine: func(e *mocks.MockDeploymentEngineMockRecorder) {
				e.Check(gomock.Any()).Return(nil)
				e.List(gomock.Any()).Return(nil, nil)
			}},
		{name: "a stall ends it", spec: func(s *domain.RolloutSpec) { s.ApprovalRequired = true },
			phase: domain.PhaseAwaitingApproval, decisions: 1, stall: domain.StallAwaitingApproval,
			engine: func(e *mocks.MockDeploymentEngineMockRecorder) {
				e.Check(gomock.Any()).Return(nil)
				e.List(gomock.Any()).Return(nil, nil)
			}},
		{name: "an end ends it", env: func(e *domain.Environment) { e.RuntimeUID = "" },
			phase: domain.PhaseOrphaned, decisions: 1},
		{name: "a transient error stops it", phase: domain.PhasePending, err: true,
			engine: func(e *mocks.MockDeploymentEngineMockRecorder) {
				e.Check(gomock.Any()).Return(errFlaky)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			engine, clock := mocks.NewMockDeploymentEngine(ctrl), mocks.NewMockClock(ctrl)
			clock.EXPECT().Now().Return(t0).AnyTimes()
			engine.EXPECT().SpecDigest(gomock.Any()).Return("sha256:planned", nil).AnyTimes()
			if tt.engine != nil {
				tt.engine(engine.EXPECT())
			}
			s, e := spec, env
			if tt.spec != nil {
				tt.spec(&s)
			}
			if tt.env != nil {
				tt.env(&e)
			}
			r, err := domain.RolloutFromStatus(s, domain.RolloutStatus{Phase: domain.PhasePending})
			require.NoError(t, err)
			out, decisions, err := app.AdvanceRollout(context.Background(), r, domain.Ports{Engine: engine, Clock: clock}, e)
			assert.Equal(t, tt.err, err != nil, "error: %v", err)
			assert.Equal(t, tt.phase, out.Phase())
			assert.Len(t, decisions, tt.decisions)
			if tt.stall != "" {
				require.NotNil(t, out.Stall)
				assert.Equal(t, tt.stall, out.Stall.Reason())
			}
		})
	}
}
