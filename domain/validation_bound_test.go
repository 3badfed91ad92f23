package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// validatingSince is a rollout validating with its run started at started.
func validatingSince(started time.Time) domain.RolloutStatus {
	st := validating()
	st.ValidationStartedAt = started
	return st
}

// TestAdvance_ValidationTimeout: a validation run still going once it has run its bound by the
// Clock (ValidationTimeout, else DefaultValidationTimeout) is deleted and ends the rollout
// Failed with a message saying it timed out and what to do; within the bound it is polled; a
// finished run is judged by its own end, whenever it is seen; a run whose start was not recorded
// gets its start recorded now instead of being ended unmeasured; a new run records its start
// and a retry clears the last run's (RO-10, RES-7).
func TestAdvance_ValidationTimeout(t *testing.T) {
	t.Parallel()
	run := ports.JobRef{Name: validationRun}
	running := ports.JobStatus{State: ports.JobRunning}
	to := spec(t).ToPlanDigest
	tests := []struct {
		name    string
		status  domain.RolloutStatus
		timeout time.Duration
		expect  func(r recorders)
		// want checks the outcome.
		phase    domain.Phase
		stall    domain.StallReason
		contains []string
		started  time.Time
		run      string
	}{
		{name: "a run within the default bound is polled", status: validatingSince(t0.Add(-domain.DefaultValidationTimeout + time.Second)),
			phase: domain.PhaseValidating, started: t0.Add(-domain.DefaultValidationTimeout + time.Second), run: validationRun,
			expect: func(r recorders) { r.jobs.Status(gomock.Any(), run).Return(running, nil) }},
		{name: "a run past the default bound is deleted and fails the rollout", status: validatingSince(t0.Add(-domain.DefaultValidationTimeout)),
			phase: domain.PhaseFailed, stall: domain.StallRolloutFailed, run: validationRun, started: t0.Add(-domain.DefaultValidationTimeout),
			contains: []string{validationRun + " timed out", "longer than 2h0m0s", "validation.timeout", "--validation-timeout"},
			expect: func(r recorders) {
				r.jobs.Status(gomock.Any(), run).Return(running, nil)
				r.jobs.Delete(gomock.Any(), run).Return(nil)
			}},
		{name: "a pod that never ran ends at the configured bound", status: validatingSince(t0.Add(-30 * time.Minute)), timeout: 30 * time.Minute,
			phase: domain.PhaseFailed, stall: domain.StallRolloutFailed, contains: []string{"longer than 30m0s"}, run: validationRun,
			started: t0.Add(-30 * time.Minute),
			expect: func(r recorders) {
				r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{State: ports.JobRunning,
					Waiting: &ports.JobWaiting{Reason: "Unschedulable", Since: t0.Add(-30 * time.Minute)}}, nil)
				r.jobs.Delete(gomock.Any(), run).Return(nil)
			}},
		{name: "a run whose start was not recorded has it recorded now", status: validating(),
			phase: domain.PhaseValidating, started: t0, run: validationRun,
			expect: func(r recorders) { r.jobs.Status(gomock.Any(), run).Return(running, nil) }},
		{name: "a run that failed past the bound fails with its own end", status: validatingSince(t0.Add(-3 * time.Hour)),
			phase: domain.PhaseFailed, stall: domain.StallRolloutFailed, contains: []string{validationRun + " failed: pre-flight"},
			started: t0.Add(-3 * time.Hour), run: validationRun,
			expect: func(r recorders) {
				r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 8, Message: "pre-flight"}, nil)
				r.jobs.Retain(gomock.Any(), run).Return(nil)
			}},
		{name: "a retry clears the start of the run before", status: validatingSince(t0.Add(-time.Hour)),
			phase: domain.PhaseValidating, run: validationRun + "-2",
			expect: func(r recorders) {
				r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 6, FinishedAt: t0.Add(-time.Hour)}, nil)
			}},
		{name: "a new run records its start", status: domain.RolloutStatus{Phase: domain.PhaseValidating, Step: 2, ValidationRun: validationRun},
			phase: domain.PhaseValidating, started: t0, run: validationRun,
			expect: func(r recorders) {
				r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{}, ports.ErrJobNotFound)
				stepsWritten(r, to)
				r.jobs.OutputRef(validationRun).Return("cm://aicr-validation/" + validationRun + "-output")
				r.jobs.Start(gomock.Any(), gomock.Any()).Return(run, nil)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired, e.ValidationTimeout = true, tt.timeout
			r.clock.Now().Return(t0).AnyTimes()
			tt.expect(r)
			out := advance(t, p, rollout(t, spec(t), tt.status), e)
			assert.Equal(t, tt.phase, out.Phase())
			assert.Equal(t, tt.run, out.Status.ValidationRun)
			if tt.phase == domain.PhaseValidating {
				assert.Equal(t, tt.started, out.Status.ValidationStartedAt)
			}
			if tt.stall == "" {
				assert.Nil(t, out.Stall)
				return
			}
			require.NotNil(t, out.Stall)
			assert.Equal(t, tt.stall, out.Stall.Reason())
			for _, part := range tt.contains {
				assert.Contains(t, out.Stall.Message(), part)
			}
		})
	}
}

// TestAdvance_ValidationAbandonedWhenTheTargetMoves: once the runtime's target moves while a
// rollout validates, its run is deleted without being read (a finished one's report is never
// used) and the rollout ends Superseded, naming the new target and the abandoned run; the
// rollout toward the new target validates on its own (RO-10). A failed delete is retried.
func TestAdvance_ValidationAbandonedWhenTheTargetMoves(t *testing.T) {
	t.Parallel()
	run := ports.JobRef{Name: validationRun}
	errFlaky := errors.New("connection reset by peer")
	for _, tc := range []struct {
		name      string
		deleteErr error
		phase     domain.Phase
	}{
		{"the run is deleted and the rollout ends Superseded", nil, domain.PhaseSuperseded},
		{"a failed delete is retried", errFlaky, domain.PhaseValidating},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired = true
			e.TargetPlanDigest = "sha256:" + strings.Repeat("1", 64)
			r.clock.Now().Return(t0).AnyTimes()
			r.jobs.Delete(gomock.Any(), run).Return(tc.deleteErr)
			out, err := rollout(t, spec(t), validatingSince(t0.Add(-time.Minute))).Advance(t.Context(), p, e)
			assert.Equal(t, tc.phase, out.Phase())
			if tc.deleteErr != nil {
				require.ErrorIs(t, err, errFlaky)
				return
			}
			require.NoError(t, err)
			assert.True(t, out.Ended)
			assert.Contains(t, out.Status.Message, "the runtime's target is now plan "+e.TargetPlanDigest)
			assert.Contains(t, out.Status.Message, "deployment validation run "+validationRun+" abandoned")
		})
	}
}
