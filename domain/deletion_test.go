package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// While its ClusterRuntime is being deleted a rollout ends Orphaned at its next decision: at
// once when no step is in flight, after the step in flight finished otherwise; nothing is
// written to the engine and no Job starts (CR-12, RO-6). gomock fails any call a case does not
// expect.
func TestAdvance_DeletingEndsOrphanedAfterTheStepInFlightCR12(t *testing.T) {
	t.Parallel()
	gpu := ref("gpu-operator")
	tests := []struct {
		name     string
		spec     []specOpt
		status   domain.RolloutStatus
		expect   func(r recorders, to string)
		want     domain.Phase
		wantStep int
		wantMsg  string
	}{
		{name: "pending", status: domain.RolloutStatus{Phase: domain.PhasePending}, want: domain.PhaseOrphaned,
			wantMsg: "its ClusterRuntime is being deleted"},
		{name: "awaiting approval", spec: []specOpt{needsApproval}, status: domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval},
			want: domain.PhaseOrphaned, wantMsg: "its ClusterRuntime is being deleted"},
		{name: "awaiting acknowledgement", spec: []specOpt{approved, func(s *domain.RolloutSpec) { s.Steps[1].AcknowledgeBeforeApply = true }},
			status: domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: 1}, want: domain.PhaseOrphaned, wantStep: 1,
			wantMsg: "its ClusterRuntime is being deleted"},
		{name: "validating", status: validating(), want: domain.PhaseOrphaned, wantStep: 2,
			wantMsg: "its ClusterRuntime is being deleted"},
		{name: "the step in flight is judged and finishes", status: inFlight(1, t0),
			expect: func(r recorders, to string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, to, true), nil)
			}, want: domain.PhaseProgressing, wantStep: 2},
		{name: "the step in flight still progresses", status: inFlight(1, t0),
			expect: func(r recorders, to string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, to, false), nil)
			}, want: domain.PhaseProgressing, wantStep: 1},
		{name: "no further step starts", status: progressing(1),
			expect: func(r recorders, _ string) {
				r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
			}, want: domain.PhaseOrphaned, wantStep: 1, wantMsg: "its ClusterRuntime is being deleted, the step in flight finished"},
		{name: "after the last step", status: progressing(2), want: domain.PhaseOrphaned, wantStep: 2,
			wantMsg: "its ClusterRuntime is being deleted, its last step finished"},
		{name: "a blocked rollout", spec: []specOpt{func(s *domain.RolloutSpec) { s.Steps[1].Assessment = ports.VerdictBlocked }},
			status: progressing(0), want: domain.PhaseOrphaned,
			wantMsg: "its ClusterRuntime is being deleted, while AICR upgrade-check blocks gpu-operator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := env(t)
			e.Deleting, e.ValidationRequired = true, true
			out := advanceAt(t, spec(t, tt.spec...), tt.status, e, t0.Add(time.Minute), tt.expect)
			assert.Equal(t, tt.want, out.Phase())
			assert.Equal(t, tt.wantStep, out.Status.Step)
			assert.Equal(t, tt.want.Terminal(), out.Ended)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, out.Status.Message)
			}
		})
	}
}

// TestDecideDeletion_CR12: the cleanup waits for the rollout in progress, then deletes the
// operator's objects, then the finalizer goes; every message says the engine objects stay.
func TestDecideDeletion_CR12(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   domain.DeletionInput
		want domain.DeletionStep
		msg  string
	}{
		{"a rollout is in progress", domain.DeletionInput{RuntimeUID: uid, RolloutInProgress: rolloutName, Leftovers: 3},
			domain.DeletionWaitForRollout, "waiting for rollout " + rolloutName + " to end Orphaned after its step in flight"},
		{"objects are left", domain.DeletionInput{RuntimeUID: uid, Leftovers: 3}, domain.DeletionCleanUp,
			"3 plans, kept results and Jobs of the operator left"},
		{"nothing is left", domain.DeletionInput{RuntimeUID: uid}, domain.DeletionDone, "are deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			step, msg := domain.DecideDeletion(tt.in)
			assert.Equal(t, tt.want, step)
			assert.Contains(t, msg, tt.msg)
			assert.Contains(t, msg, "the engine objects stay for a later runtime to adopt (spec.adoption.runtimeUID "+uid+")")
		})
	}
}
