package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// While the runtime is paused, or its engine suspended, no step and no validation run starts, a
// step in flight is still judged, and a rollout still ends when its approval ends, its deadline
// passes or its target moves (spec.paused, spec.suspendEngine, RO-8). A rollout never writes the
// suspension itself: the runtime controller does (DecideSuspension). gomock fails any engine
// write (Apply, Remove, Suspend) or Job start a case does not expect.
func TestAdvance_PausedOrEngineSuspendedRO8(t *testing.T) {
	t.Parallel()
	gpu := ref("gpu-operator")
	notFound := func(r recorders, _ string) {
		r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
	}
	inventory := func(r recorders, _ string) {
		r.engine.Check(gomock.Any()).Return(nil)
		r.engine.List(gomock.Any()).Return(nil, nil)
	}
	tests := []struct {
		name        string
		spec        []specOpt
		status      domain.RolloutStatus
		now         time.Time
		moved       bool
		expect      func(r recorders, to string)
		want        domain.Phase
		wantStep    int
		wantRequeue time.Duration
	}{
		{name: "no step starts", status: progressing(1), now: t0, expect: notFound,
			want: domain.PhaseProgressing, wantStep: 1},
		{name: "no step starts over the runtime's own engine object", status: progressing(1), now: t0,
			expect: func(r recorders, _ string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, "sha256:old", true), nil)
			}, want: domain.PhaseProgressing, wantStep: 1},
		{name: "an approved rollout is looked at again when its approval expires", spec: []specOpt{approved},
			status: progressing(1), now: t0.Add(time.Hour), expect: notFound,
			want: domain.PhaseProgressing, wantStep: 1, wantRequeue: time.Hour},
		{name: "an expired approval ends the rollout", spec: []specOpt{approved}, status: progressing(1),
			now: t0.Add(3 * time.Hour), expect: notFound, want: domain.PhaseExpired, wantStep: 1},
		{name: "a revoked approval ends the rollout", spec: []specOpt{revoked}, status: progressing(1),
			now: t0.Add(90 * time.Minute), expect: notFound, want: domain.PhaseRevoked, wantStep: 1},
		{name: "a moved target supersedes the rollout", status: progressing(1), now: t0, moved: true,
			expect: notFound, want: domain.PhaseSuperseded, wantStep: 1},
		{name: "the step in flight is judged and finishes", status: inFlight(1, t0), now: t0.Add(time.Minute),
			expect: func(r recorders, to string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, to, true), nil)
			}, want: domain.PhaseProgressing, wantStep: 2},
		{name: "a pending rollout that needs no approval does not start", status: domain.RolloutStatus{Phase: domain.PhasePending},
			now: t0, expect: inventory, want: domain.PhasePending},
		{name: "a pending rollout that needs approval awaits it", spec: []specOpt{needsApproval},
			status: domain.RolloutStatus{Phase: domain.PhasePending}, now: t0, expect: inventory,
			want: domain.PhaseAwaitingApproval, wantRequeue: 24 * time.Hour},
		{name: "a rollout awaiting approval expires at its deadline", spec: []specOpt{needsApproval},
			status: domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval}, now: t0.Add(25 * time.Hour),
			want: domain.PhaseExpired},
		{name: "no validation run starts", status: validating(), now: t0, expect: func(r recorders, _ string) {
			r.jobs.Status(gomock.Any(), ports.JobRef{Name: validationRun}).Return(ports.JobStatus{}, ports.ErrJobNotFound)
		}, want: domain.PhaseValidating, wantStep: 2},
	}
	switches := map[string]func(*domain.Environment){
		"paused":           func(e *domain.Environment) { e.Paused = true },
		"engine suspended": func(e *domain.Environment) { e.SuspendEngine = true },
	}
	for sw, set := range switches {
		for _, tt := range tests {
			t.Run(sw+": "+tt.name, func(t *testing.T) {
				t.Parallel()
				e := env(t)
				set(&e)
				e.ValidationRequired = true
				if tt.moved {
					e.TargetPlanDigest = "sha256:newer"
				}
				out := advanceAt(t, spec(t, tt.spec...), tt.status, e, tt.now, tt.expect)
				assert.Equal(t, tt.want, out.Phase())
				assert.Equal(t, tt.wantStep, out.Status.Step)
				assert.Equal(t, tt.wantRequeue, out.RequeueAfter)
			})
		}
	}
}
