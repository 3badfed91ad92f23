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

// forgedNow is after the revocation (t0+1h) and the expiry (t0+2h) of the test approvals,
// before the deadline (t0+24h).
var forgedNow = t0.Add(3 * time.Hour)

func expiredApproval(s *domain.RolloutSpec) {
	approved(s)
	s.Approval.ExpiresAt = t0.Add(2 * time.Hour)
}

func ackOnFirstStep(s *domain.RolloutSpec) { s.Steps[0].AcknowledgeBeforeApply = true }

// forgedStatus is a status claiming a phase past approval that no decision of the domain
// reached, and the engine and job reads judging it may take (never a write: gomock fails any
// call a case does not expect).
type forgedStatus struct {
	name   string
	spec   []specOpt
	status domain.RolloutStatus
	reads  func(r recorders, to string)
}

func notFound(id string) func(r recorders, to string) {
	return func(r recorders, _ string) {
		r.engine.Status(gomock.Any(), ref(id)).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
	}
}

func nothingLive(r recorders, _ string) { r.engine.List(gomock.Any()).Return(nil, nil) }

func noValidationRun(then func(r recorders, to string)) func(r recorders, to string) {
	return func(r recorders, to string) {
		r.jobs.Status(gomock.Any(), ports.JobRef{Name: validationRun}).Return(ports.JobStatus{}, ports.ErrJobNotFound)
		then(r, to)
	}
}

func forgedStatuses() []forgedStatus {
	ack := func(step int) domain.RolloutStatus {
		return domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: step}
	}
	validatingAt := func(step int, run string) domain.RolloutStatus {
		return domain.RolloutStatus{Phase: domain.PhaseValidating, Step: step, ValidationRun: run}
	}
	return []forgedStatus{
		{name: "Progressing at the first step", status: progressing(0), reads: notFound("cert-manager")},
		{name: "Progressing, step index forged ahead", status: progressing(1), reads: notFound("gpu-operator")},
		{name: "Progressing, step index forged past the last step", status: progressing(2), reads: nothingLive},
		{name: "Progressing past the last step, objects of an earlier rollout not synced since", status: progressing(2),
			reads: func(r recorders, to string) {
				earlier := func(id string) ports.ReleaseStatus {
					st := written(ref(id), to, true)
					st.Owner.Rollout, st.LastSyncAt = "rollout-0123456789abcdef-0", t0.Add(-time.Hour)
					return st
				}
				r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{earlier("cert-manager"), earlier("gpu-operator")}, nil)
			}},
		{name: "Progressing with a forged step start", status: inFlight(1, t0.Add(30*time.Minute)), reads: notFound("gpu-operator")},
		{name: "AwaitingAcknowledgement of an applied manual step", spec: []specOpt{ackOnFirstStep}, status: ack(0)},
		{name: "AwaitingAcknowledgement of a step that does not pause", status: ack(1), reads: notFound("gpu-operator")},
		{name: "AwaitingAcknowledgement past the last step", status: ack(2), reads: nothingLive},
		{name: "Validating", status: validating(), reads: noValidationRun(nothingLive)},
		{name: "Validating, run name of another rollout", status: validatingAt(2, "rollout-fedcba9876543210-1-validate"),
			reads: noValidationRun(nothingLive)},
		{name: "Validating, step index short of the last step", status: validatingAt(0, validationRun), reads: notFound("cert-manager")},
	}
}

// TestAdvance_ForgedPhaseWithoutValidApproval: a status claiming a phase past approval on a
// rollout that requires one is not an approval. Without any approval the rollout goes back to
// AwaitingApproval before any port is used; with a revoked or expired one it ends Revoked or
// Expired before a step the engine objects do not show it made (RO-8). No case writes: no
// Apply, Adopt, Remove, Suspend or validation run is expected.
func TestAdvance_ForgedPhaseWithoutValidApproval(t *testing.T) {
	t.Parallel()
	approvals := []struct {
		name  string
		opt   specOpt
		phase domain.Phase
		stall domain.StallReason
	}{
		{"no approval", needsApproval, domain.PhaseAwaitingApproval, domain.StallAwaitingApproval},
		{"revoked approval", revoked, domain.PhaseRevoked, domain.StallRolloutRevoked},
		{"expired approval", expiredApproval, domain.PhaseExpired, domain.StallRolloutExpired},
	}
	for _, a := range approvals {
		for _, f := range forgedStatuses() {
			t.Run(a.name+": "+f.name, func(t *testing.T) {
				t.Parallel()
				e := env(t)
				e.ValidationRequired = true
				var reads func(r recorders, to string)
				if a.phase != domain.PhaseAwaitingApproval {
					reads = f.reads
				}
				out := advanceAt(t, spec(t, append([]specOpt{a.opt}, f.spec...)...), f.status, e, forgedNow, reads)
				assert.Equal(t, a.phase, out.Phase())
				require.NotNil(t, out.Stall)
				assert.Equal(t, a.stall, out.Stall.Reason())
				assert.Equal(t, a.phase != domain.PhaseAwaitingApproval, out.Ended)
				if a.phase == domain.PhaseAwaitingApproval {
					assert.Equal(t, domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval, Message: out.Stall.Message()}, out.Status,
						"back before the first step")
					assert.Contains(t, out.Event, "without the approval its spec requires")
				}
			})
		}
	}
}

// TestAdvance_ForgedStepStartOfARemove: under a revoked approval, a Remove step counts as made
// only when the engine object shows its removal began, not because the status records a start.
func TestAdvance_ForgedStepStartOfARemove(t *testing.T) {
	t.Parallel()
	old := ports.ReleaseRef{ID: "dcgm", Namespace: "dcgm"}
	removal := func(s *domain.RolloutSpec) {
		s.FromPlanDigest = "sha256:from"
		s.Steps = append([]domain.Step{{Release: old, Operation: domain.OpRemove}}, s.Steps...)
	}
	out := advanceAt(t, spec(t, revoked, removal), inFlight(0, t0.Add(30*time.Minute)), env(t), forgedNow,
		func(r recorders, _ string) {
			r.engine.Status(gomock.Any(), old).Return(ports.ReleaseStatus{Ref: old,
				Owner: ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: "sha256:from"}}, nil)
		})
	assert.Equal(t, domain.PhaseRevoked, out.Phase())
}

// TestAdvance_ForgedEndWithValidApproval: with the approval valid (or none required) a status
// claiming every step finished is judged from the engine objects before the rollout validates
// or succeeds: it goes back to the first step they do not show made, writing nothing in this
// call.
func TestAdvance_ForgedEndWithValidApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spec   []specOpt
		status domain.RolloutStatus
		reads  func(r recorders, to string)
		want   int
	}{
		{"no approval required, Progressing past the last step", nil, progressing(2), nothingLive, 0},
		{"no approval required, Validating", nil, validating(), noValidationRun(nothingLive), 0},
		{"approved, AwaitingAcknowledgement past the last step", []specOpt{approved},
			domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: 2}, nothingLive, 0},
		{"approved, only the first step made", []specOpt{approved}, progressing(2), func(r recorders, to string) {
			r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{written(ref("cert-manager"), to, true)}, nil)
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := env(t)
			e.ValidationRequired = true
			out := advanceAt(t, spec(t, tt.spec...), tt.status, e, t0.Add(time.Minute), tt.reads)
			assert.Equal(t, domain.PhaseProgressing, out.Phase())
			assert.Equal(t, tt.want, out.Status.Step)
			assert.Empty(t, out.Status.ValidationRun)
			assert.Contains(t, out.Event, "the engine objects do not show")
			assert.False(t, out.Ended)
		})
	}
}

// TestAdvance_OutcomeEndedOnlyWhenDecided: Outcome.Ended tells an outcome this call decided
// from one the rollout was handed in (a status claiming it, which the caller must not turn into
// an outcome label).
func TestAdvance_OutcomeEndedOnlyWhenDecided(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status domain.RolloutStatus
		env    func(e *domain.Environment)
		reads  func(r recorders, to string)
		want   domain.Phase
		ended  bool
	}{
		{"handed Succeeded", domain.RolloutStatus{Phase: domain.PhaseSucceeded}, nil, nil, domain.PhaseSucceeded, false},
		{"handed Failed", domain.RolloutStatus{Phase: domain.PhaseFailed, Message: "x"}, nil, nil, domain.PhaseFailed, false},
		{"decided Orphaned", progressing(0), func(e *domain.Environment) { e.RuntimeUID = "" }, nil, domain.PhaseOrphaned, true},
		{"decided Succeeded", progressing(2), nil, stepsWritten, domain.PhaseSucceeded, true},
		{"decided Superseded", progressing(1), func(e *domain.Environment) { e.TargetPlanDigest = "sha256:newer" },
			notFound("gpu-operator"), domain.PhaseSuperseded, true},
		{"not ended", progressing(2), func(e *domain.Environment) { e.ValidationRequired = true }, stepsWritten,
			domain.PhaseValidating, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := env(t)
			if tt.env != nil {
				tt.env(&e)
			}
			out := advanceAt(t, spec(t), tt.status, e, t0.Add(time.Minute), tt.reads)
			assert.Equal(t, tt.want, out.Phase())
			assert.Equal(t, tt.ended, out.Ended)
		})
	}
}
