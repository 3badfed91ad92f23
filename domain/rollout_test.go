package domain_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

var errBoom = errors.New("boom")

func TestAdvance_InitialInstallOneDecisionAtATime(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	e := env(t)
	s := spec(t)
	cm, gpu := ref("cert-manager"), ref("gpu-operator")
	now := t0.Add(time.Minute)
	r.clock.Now().DoAndReturn(func() time.Time { return now }).AnyTimes()
	ro, err := domain.RolloutFromStatus(s, domain.RolloutStatus{Phase: domain.PhasePending})
	require.NoError(t, err)

	// 1: Pending -> Progressing after the engine and inventory checks.
	pendingReady(r)
	out := advance(t, p, ro, e)
	require.Equal(t, domain.PhaseProgressing, out.Phase())
	assert.Nil(t, out.Stall)

	// 2: the first step applies cert-manager exactly once.
	r.engine.Status(gomock.Any(), cm).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
	r.engine.Apply(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, spec ports.ReleaseSpec) error {
		assert.Equal(t, cm, spec.Ref)
		assert.Equal(t, s.ToPlanDigest, spec.Owner.PlanDigest)
		assert.Equal(t, rolloutName, spec.Owner.Rollout)
		assert.Contains(t, spec.Values, "gone", "explicit nulls reach the engine")
		return nil
	})
	ro = rollout(t, s, advance(t, p, ro, e).Status)
	assert.Equal(t, "rollout "+rolloutName+": step 1/2 cert-manager (Install)", ro.Status().Message)

	// 3: not ready yet: wait, no second write (RO-12).
	r.engine.Status(gomock.Any(), cm).Return(written(cm, s.ToPlanDigest, false), nil)
	out = advance(t, p, ro, e)
	assert.Positive(t, out.RequeueAfter)
	assert.Equal(t, 0, out.Status.Step)

	// 4: ready: next step.
	r.engine.Status(gomock.Any(), cm).Return(written(cm, s.ToPlanDigest, true), nil)
	ro = rollout(t, s, advance(t, p, ro, e).Status)
	assert.Equal(t, 1, ro.Status().Step)

	// 5, 6: gpu-operator applied and ready.
	r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
	r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
	ro = rollout(t, s, advance(t, p, ro, e).Status)
	r.engine.Status(gomock.Any(), gpu).Return(written(gpu, s.ToPlanDigest, true), nil)
	ro = rollout(t, s, advance(t, p, ro, e).Status)

	// 7: every step finished and the engine objects show them made, validation disabled:
	// Succeeded, an outcome this call decided.
	stepsWritten(r, s.ToPlanDigest)
	out = advance(t, p, ro, e)
	assert.Equal(t, domain.PhaseSucceeded, out.Phase())
	assert.True(t, out.Ended)
	assert.Nil(t, out.Stall)
}

func TestAdvance_StepActionTimeout(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	s := spec(t)
	cm := ref("cert-manager")
	r.clock.Now().Return(t0.Add(domain.DefaultActionTimeout + time.Second))
	r.engine.Status(gomock.Any(), cm).Return(written(cm, s.ToPlanDigest, false), nil)
	out := advance(t, p, rollout(t, s, inFlight(0, t0)), env(t))
	assert.Equal(t, domain.PhaseFailed, out.Phase())
	require.NotNil(t, out.Stall)
	assert.Equal(t, domain.StallRolloutFailed, out.Stall.Reason())
}

// TestAdvance_SyncFailureOfTheStep: the engine reports its last operation,
// which may be an earlier failed sync of the spec before this step wrote its
// own; only a failure that started at or after the step fails the rollout. A
// restored rollout, which lost when its step started, counts any (RO-7, RO-8).
func TestAdvance_SyncFailureOfTheStep(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	started := t0.Add(10*time.Minute + 700*time.Millisecond)
	tests := []struct {
		name     string
		status   domain.RolloutStatus
		syncedAt time.Time
		want     domain.Phase
	}{
		{"a failure from before the step is stale: the step waits", inFlight(0, started),
			t0.Add(5 * time.Minute), domain.PhaseProgressing},
		{"a failure of the sync the step started fails it", inFlight(0, started),
			t0.Add(11 * time.Minute), domain.PhaseFailed},
		{"an operation started in the same second as the step is the step's", inFlight(0, started),
			t0.Add(10 * time.Minute), domain.PhaseFailed},
		{"restored: the step was written before the restore, any failure counts", progressing(0),
			t0.Add(-time.Hour), domain.PhaseFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t)
			r.clock.Now().Return(t0.Add(12 * time.Minute)).AnyTimes()
			st := written(cm, s.ToPlanDigest, false)
			st.Operation, st.LastSyncAt, st.Message = ports.OperationFailed, tt.syncedAt, "webhook denied"
			r.engine.Status(gomock.Any(), cm).Return(st, nil)
			out := advance(t, p, rollout(t, s, tt.status), env(t))
			assert.Equal(t, tt.want, out.Phase())
			if tt.want == domain.PhaseFailed {
				assert.Contains(t, out.Status.Message, "webhook denied")
				return
			}
			assert.Nil(t, out.Stall)
			assert.Equal(t, 10*time.Second, out.RequeueAfter, "the step waits for the sync of its spec")
		})
	}
}

// TestAdvance_ForeignObjectsNeverWrittenRO11: a step over an engine object in the way that the
// operator did not create or that another runtime records stalls ForeignObject before anything
// is written; an Adopt step writes only the object of the runtime spec.adoption names (ENG-2,
// RO-11). gomock fails any write a case does not expect.
func TestAdvance_ForeignObjectsNeverWrittenRO11(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	other := func(runtime string) ports.ReleaseStatus {
		return ports.ReleaseStatus{Ref: cm, Owner: ports.ReleaseOwner{RuntimeUID: runtime, PlanDigest: "sha256:old"}}
	}
	tests := []struct {
		name string
		op   domain.Operation
		live ports.ReleaseStatus
	}{
		{"install over an object the operator did not create", domain.OpInstall, other("")},
		{"install over another runtime's object", domain.OpInstall, other("another-runtime")},
		{"upgrade of another runtime's object", domain.OpUpgrade, other("another-runtime")},
		{"remove of another runtime's object", domain.OpRemove, other("another-runtime")},
		{"adopt of a runtime spec.adoption does not name", domain.OpAdopt, other("another-runtime")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = tt.op })
			e := env(t)
			e.AdoptionRuntimeUID = "old-runtime"
			r.clock.Now().Return(t0).AnyTimes()
			r.engine.Status(gomock.Any(), cm).Return(tt.live, nil)
			out := advance(t, p, rollout(t, s, progressing(0)), e)
			require.NotNil(t, out.Stall)
			assert.Equal(t, domain.StallForeignObject, out.Stall.Reason())
			assert.Contains(t, out.Stall.Message(), "cert-manager")
		})
	}
}

// TestAdvance_RestoredInProgress: a rollout restored from a backup while in
// progress comes back Pending at step 0. When its own mutations explain the
// drift of the live inventory (an engine object records it, or only objects
// its Remove steps delete are gone) it resumes, even with its approval
// expired since: progress finds the first step not made and gates that one
// on the approval. Any other drift still stalls InventoryDrift (RO-8, RO-12,
// RO-13).
func TestAdvance_RestoredInProgress(t *testing.T) {
	t.Parallel()
	cm, gpu, old := ref("cert-manager"), ref("gpu-operator"), ports.ReleaseRef{ID: "dcgm", Namespace: "dcgm"}
	const from = "sha256:from"
	ours := func(r ports.ReleaseRef, plan string) ports.ReleaseStatus {
		return ports.ReleaseStatus{Ref: r, Owner: ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: plan}}
	}
	digest := func(t *testing.T, live ...ports.ReleaseStatus) string {
		t.Helper()
		d, err := domain.InventoryDigest(live)
		require.NoError(t, err)
		return d
	}
	// upgrade removes dcgm, then upgrades cert-manager and gpu-operator from plan "from".
	upgrade := func(t *testing.T, s *domain.RolloutSpec) {
		s.FromPlanDigest = from
		s.Steps[0].Operation, s.Steps[1].Operation = domain.OpUpgrade, domain.OpUpgrade
		s.Steps = append([]domain.Step{{Release: old, Operation: domain.OpRemove}}, s.Steps...)
		s.StartingInventoryDigest = digest(t, ours(old, from), ours(cm, from), ours(gpu, from))
	}
	expiredApproval := func(s *domain.RolloutSpec) {
		approved(s)
		s.Approval.ExpiresAt = t0.Add(time.Minute)
	}
	tests := []struct {
		name  string
		spec  func(t *testing.T, s *domain.RolloutSpec)
		live  func(to string) []ports.ReleaseStatus
		want  domain.Phase
		stall domain.StallReason
	}{
		{"an object written by this rollout: resumes", upgrade, func(to string) []ports.ReleaseStatus {
			return []ports.ReleaseStatus{written(cm, to, true), ours(gpu, from)}
		}, domain.PhaseProgressing, ""},
		{"approval expired since: resumes, the gate ends it before a step not made", func(t *testing.T, s *domain.RolloutSpec) {
			upgrade(t, s)
			expiredApproval(s)
		}, func(to string) []ports.ReleaseStatus {
			return []ports.ReleaseStatus{written(cm, to, false), ours(gpu, from)}
		}, domain.PhaseProgressing, ""},
		{"only its removal made: resumes", func(t *testing.T, s *domain.RolloutSpec) {
			upgrade(t, s)
			expiredApproval(s)
		}, func(string) []ports.ReleaseStatus {
			return []ports.ReleaseStatus{ours(cm, from), ours(gpu, from)}
		}, domain.PhaseProgressing, ""},
		{"its removal and another change: InventoryDrift", upgrade, func(string) []ports.ReleaseStatus {
			return []ports.ReleaseStatus{ours(cm, from), ours(gpu, "sha256:other")}
		}, domain.PhasePending, domain.StallInventoryDrift},
		{"an object another rollout wrote: InventoryDrift", upgrade, func(to string) []ports.ReleaseStatus {
			st := written(cm, to, true)
			st.Owner.Rollout = "rollout-0123456789abcdef-0"
			return []ports.ReleaseStatus{ours(old, from), st, ours(gpu, from)}
		}, domain.PhasePending, domain.StallInventoryDrift},
		{"nothing made, approval expired: Expired", func(t *testing.T, s *domain.RolloutSpec) {
			upgrade(t, s)
			expiredApproval(s)
		}, func(string) []ports.ReleaseStatus {
			return []ports.ReleaseStatus{ours(old, from), ours(cm, from), ours(gpu, from)}
		}, domain.PhaseExpired, domain.StallRolloutExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t, func(s *domain.RolloutSpec) { tt.spec(t, s) })
			r.clock.Now().Return(t0.Add(time.Hour)).AnyTimes()
			r.engine.Check(gomock.Any()).Return(nil)
			r.engine.List(gomock.Any()).Return(tt.live(s.ToPlanDigest), nil)
			out := advance(t, p, rollout(t, s, domain.RolloutStatus{}), env(t))
			assert.Equal(t, tt.want, out.Phase())
			if tt.stall == "" {
				assert.Nil(t, out.Stall)
				assert.Contains(t, out.Event, "resumed")
				return
			}
			require.NotNil(t, out.Stall)
			assert.Equal(t, tt.stall, out.Stall.Reason())
		})
	}
}

func TestAdvance_ApprovalRules(t *testing.T) {
	t.Parallel()
	gpu := ref("gpu-operator")
	tests := []struct {
		name   string
		spec   []specOpt
		status domain.RolloutStatus
		now    time.Time
		engine func(r recorders, to string)
		want   domain.Phase
	}{
		{"step in flight finishes after the approval expired", []specOpt{approved},
			inFlight(1, t0.Add(115*time.Minute)), t0.Add(125 * time.Minute), func(r recorders, to string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, to, false), nil)
			}, domain.PhaseProgressing},
		{"expired approval ends the rollout before an unstarted step", []specOpt{approved}, progressing(1),
			t0.Add(3 * time.Hour), func(r recorders, _ string) {
				r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
			}, domain.PhaseExpired},
		{"revoked approval lets the step in flight finish", []specOpt{revoked}, inFlight(1, t0),
			t0.Add(90 * time.Minute), func(r recorders, to string) {
				r.engine.Status(gomock.Any(), gpu).Return(written(gpu, to, true), nil)
			}, domain.PhaseProgressing},
		{"revocation after the last step is ignored", []specOpt{revoked}, progressing(2),
			t0.Add(90 * time.Minute), stepsWritten, domain.PhaseSucceeded},
		{"approval starts the steps", []specOpt{approved}, domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval},
			t0.Add(time.Minute), func(r recorders, _ string) {
				r.engine.List(gomock.Any()).Return(nil, nil)
			}, domain.PhaseProgressing},
		{"revocation after the first step was written, before Progressing was recorded: it finishes", []specOpt{revoked},
			domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval}, t0.Add(90 * time.Minute), func(r recorders, to string) {
				r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{written(ref("cert-manager"), to, false)}, nil)
			}, domain.PhaseProgressing},
		{"revocation before any step was written ends it", []specOpt{revoked},
			domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval}, t0.Add(90 * time.Minute), func(r recorders, _ string) {
				r.engine.List(gomock.Any()).Return(nil, nil)
			}, domain.PhaseRevoked},
		{"approval after the inventory drifted waits: InventoryDrift", []specOpt{approved, func(s *domain.RolloutSpec) {
			s.StartingInventoryDigest = "sha256:00"
		}}, domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval}, t0.Add(time.Minute), func(r recorders, _ string) {
			r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{{Ref: gpu}}, nil)
		}, domain.PhaseAwaitingApproval},
		{"revocation while awaiting acknowledgement ends it before the apply", []specOpt{revoked, func(s *domain.RolloutSpec) {
			s.Steps[0].AcknowledgeBeforeApply = true
		}}, domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement}, t0.Add(90 * time.Minute), nil,
			domain.PhaseRevoked},
		{"approval expired while awaiting acknowledgement ends it", []specOpt{approved, func(s *domain.RolloutSpec) {
			s.Steps[0].AcknowledgeBeforeApply = true
		}}, domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement}, t0.Add(3 * time.Hour), nil,
			domain.PhaseExpired},
		{"acknowledgement applies the paused step", []specOpt{approved, func(s *domain.RolloutSpec) {
			s.Steps[1].AcknowledgeBeforeApply = true
			s.Approval.Acknowledgements = []domain.Acknowledgement{{Release: "gpu-operator", AcknowledgedBy: "alice"}}
		}}, domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: 1}, t0.Add(time.Minute),
			func(r recorders, _ string) {
				r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
				r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
			}, domain.PhaseProgressing},
		{"no acknowledgement: the paused step is not applied", []specOpt{approved, func(s *domain.RolloutSpec) {
			s.Steps[1].AcknowledgeBeforeApply = true
		}}, domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: 1}, t0.Add(time.Minute), nil,
			domain.PhaseAwaitingAcknowledgement},
		{"superseded before an unstarted step", nil, progressing(1), t0, func(r recorders, _ string) {
			r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
		}, domain.PhaseSuperseded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := env(t)
			if tt.want == domain.PhaseSuperseded {
				e.TargetPlanDigest = "sha256:newer"
			}
			out := advanceAt(t, spec(t, tt.spec...), tt.status, e, tt.now, tt.engine)
			assert.Equal(t, tt.want, out.Phase())
		})
	}
}

func TestAdvance_OrphanedAndTerminal(t *testing.T) {
	t.Parallel()
	p, _ := newPorts(t)
	e := env(t)
	e.RuntimeUID = "another-uid"
	out := advance(t, p, rollout(t, spec(t), progressing(0)), e)
	assert.Equal(t, domain.PhaseOrphaned, out.Phase())

	failed := rollout(t, spec(t), domain.RolloutStatus{Phase: domain.PhaseFailed, Message: "x"})
	out = advance(t, p, failed, env(t))
	assert.Equal(t, domain.PhaseFailed, out.Phase())
	require.NotNil(t, out.Stall)
	assert.Equal(t, domain.StallRolloutFailed, out.Stall.Reason())
}

func TestAdvance_TransientErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status domain.RolloutStatus
		expect func(r recorders)
	}{
		{"engine check", domain.RolloutStatus{}, func(r recorders) { r.engine.Check(gomock.Any()).Return(errBoom) }},
		{"engine status", progressing(0), func(r recorders) {
			r.engine.Status(gomock.Any(), gomock.Any()).Return(ports.ReleaseStatus{}, errBoom)
		}},
		{"engine apply", progressing(0), func(r recorders) {
			r.engine.Status(gomock.Any(), gomock.Any()).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
			r.engine.Apply(gomock.Any(), gomock.Any()).Return(errBoom)
		}},
		{"validation report (RO-10)", validating(), func(r recorders) {
			r.jobs.Status(gomock.Any(), gomock.Any()).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
			r.jobs.Output(gomock.Any(), gomock.Any()).Return(nil, errBoom)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			r.clock.Now().Return(t0).AnyTimes()
			tt.expect(r)
			out, err := rollout(t, spec(t), tt.status).Advance(t.Context(), p, env(t))
			require.ErrorIs(t, err, errBoom)
			assert.Nil(t, out.Stall)
		})
	}
}

// TestAdvance_RemoveBegunBeforeACrash: a Remove whose cascade marker was set by a reconcile
// that crashed before it deleted (status lost, so the step looks unstarted) is a removal
// begun: a revoked approval does not end the rollout before it, and the removal is finished
// instead of leaving the marker on a live object (ENG-3, RO-8, RO-12).
func TestAdvance_RemoveBegunBeforeACrash(t *testing.T) {
	t.Parallel()
	old := ports.ReleaseRef{ID: "dcgm", Namespace: "dcgm"}
	removal := func(s *domain.RolloutSpec) {
		revoked(s)
		s.FromPlanDigest = "sha256:from"
		s.Steps = append([]domain.Step{{Release: old, Operation: domain.OpRemove}}, s.Steps...)
	}
	for _, tc := range []struct {
		name     string
		removing bool
		want     domain.Phase
	}{
		{"removal begun: it is finished", true, domain.PhaseProgressing},
		{"removal not begun: the revocation ends the rollout", false, domain.PhaseRevoked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			s := spec(t, removal)
			r.clock.Now().Return(t0.Add(90 * time.Minute)).AnyTimes()
			r.engine.Status(gomock.Any(), old).Return(ports.ReleaseStatus{Ref: old, Removing: tc.removing,
				Owner: ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: "sha256:from"}}, nil)
			if tc.removing {
				r.engine.Remove(gomock.Any(), old, gomock.Any()).Return(nil)
			}
			out := advance(t, p, rollout(t, s, progressing(0)), env(t))
			assert.Equal(t, tc.want, out.Phase())
		})
	}
}
