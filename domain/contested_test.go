package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// writersEngine is an engine double that also tells the other writers of an engine object.
type writersEngine struct {
	*mocks.MockDeploymentEngine
	writers *mocks.MockSpecWriters
}

// OtherSpecWriters answers from the writers double.
func (e writersEngine) OtherSpecWriters(ctx context.Context, ref ports.ReleaseRef) ([]string, error) {
	return e.writers.OtherSpecWriters(ctx, ref)
}

// changedBack is the status of ref's engine object, written by this rollout and changed since.
func changedBack(ref ports.ReleaseRef, plan string) ports.ReleaseStatus {
	st := written(ref, plan, false)
	st.SpecDigest, st.Object = "sha256:edited", "Application argocd/"+ref.Namespace+"."+ref.ID
	return st
}

// afterWrites is the rollout's first step in flight since t0 after writes of its object.
func afterWrites(writes int) domain.RolloutStatus {
	st := inFlight(0, t0)
	st.StepWrites = writes
	return st
}

// contestedStall drives a step whose object was changed back after every write into its stall.
func contestedStall(s domain.RolloutSpec, ref ports.ReleaseRef) func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
	return func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
		t.Helper()
		w := mocks.NewMockSpecWriters(gomock.NewController(t))
		w.EXPECT().OtherSpecWriters(gomock.Any(), ref).Return([]string{"policy-controller"}, nil)
		p.Engine = writersEngine{MockDeploymentEngine: p.Engine.(*mocks.MockDeploymentEngine), writers: w}
		r.engine.Status(gomock.Any(), ref).Return(changedBack(ref, s.ToPlanDigest), nil)
		r.clock.Now().Return(t0.Add(time.Hour)).AnyTimes()
		e := env(t)
		e.ActionTimeout = 2 * time.Hour
		return advance(t, p, rollout(t, s, afterWrites(domain.StepRewriteBound+1)), e).Stall
	}
}

// A step writes its engine object again after each change, StepRewriteBound times, then stalls
// EngineObjectContested naming the object and the other writer, writes no more, and ends Failed
// at its step timeout; an object that asks for the planned spec again lets the step go on.
func TestStepRewritesAreBounded(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	tests := []struct {
		name    string
		writes  int
		now     time.Time
		engine  func(r recorders, s domain.RolloutSpec)
		writers []string
		// want: the stall reason, "" for none; wantPhase the phase after the pass.
		want      domain.StallReason
		wantPhase domain.Phase
		wantWrite bool
		wantMsg   string
	}{
		{name: "the last rewrite the bound allows is made", writes: domain.StepRewriteBound, now: t0.Add(time.Hour),
			engine: func(r recorders, s domain.RolloutSpec) {
				r.engine.Status(gomock.Any(), cm).Return(changedBack(cm, s.ToPlanDigest), nil)
				r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
			}, wantPhase: domain.PhaseProgressing, wantWrite: true},
		{name: "one more stalls, naming the object and the other writer", writes: domain.StepRewriteBound + 1,
			now: t0.Add(time.Hour), writers: []string{"policy-controller", "kubectl-edit"},
			engine: func(r recorders, s domain.RolloutSpec) {
				r.engine.Status(gomock.Any(), cm).Return(changedBack(cm, s.ToPlanDigest), nil)
			}, want: domain.StallEngineObjectContested, wantPhase: domain.PhaseProgressing,
			wantMsg: "step 1/2 cert-manager (Install): Application argocd/cert-manager.cert-manager was changed " +
				"by policy-controller, kubectl-edit after each of the step's 4 writes; it is not written again"},
		{name: "the step fails at its step timeout", writes: domain.StepRewriteBound + 1, now: t0.Add(3 * time.Hour),
			engine: func(r recorders, s domain.RolloutSpec) {
				r.engine.Status(gomock.Any(), cm).Return(changedBack(cm, s.ToPlanDigest), nil)
			}, want: domain.StallRolloutFailed, wantPhase: domain.PhaseFailed,
			wantMsg: "step 1/2 cert-manager (Install) not ready within 2h0m0s: Application argocd/cert-manager.cert-manager was changed after each of the step's 4 writes"},
		{name: "an object asking for the planned spec again goes on", writes: domain.StepRewriteBound + 1, now: t0.Add(time.Hour),
			engine: func(r recorders, s domain.RolloutSpec) {
				r.engine.Status(gomock.Any(), cm).Return(written(cm, s.ToPlanDigest, false), nil)
			}, wantPhase: domain.PhaseProgressing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t)
			require.Equal(t, cm, s.Steps[0].Release, "the first step installs cert-manager")
			if tt.writers != nil {
				w := mocks.NewMockSpecWriters(gomock.NewController(t))
				w.EXPECT().OtherSpecWriters(gomock.Any(), cm).Return(tt.writers, nil)
				p.Engine = writersEngine{MockDeploymentEngine: p.Engine.(*mocks.MockDeploymentEngine), writers: w}
			}
			r.clock.Now().Return(tt.now).AnyTimes()
			tt.engine(r, s)
			e := env(t)
			e.ActionTimeout = 2 * time.Hour
			out := advance(t, p, rollout(t, s, afterWrites(tt.writes)), e)
			assert.Equal(t, tt.wantPhase, out.Status.Phase)
			assert.Equal(t, tt.wantWrite, out.Mutated)
			if tt.wantWrite {
				assert.Equal(t, tt.writes+1, out.Status.StepWrites, "each write is counted")
			}
			if tt.want == "" {
				assert.Nil(t, out.Stall)
				return
			}
			require.NotNil(t, out.Stall)
			assert.Equal(t, tt.want, out.Stall.Reason())
			assert.Contains(t, out.Stall.Message(), tt.wantMsg)
		})
	}
}
