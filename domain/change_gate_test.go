package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// t0 is Sunday 2026-03-01 12:00 UTC: mondayWindow("UTC") opens next on 2026-03-02T02:00:00Z.
var mondayOpens = time.Date(2026, 3, 2, 2, 0, 0, 0, time.UTC)

func TestDisruptionGate(t *testing.T) {
	t.Parallel()
	training := []ports.Workload{{Namespace: "ml", Name: "train-0", Node: "gpu-1"}}
	override := func(s *domain.RolloutSpec) {
		s.Approval.Overrides = []domain.DisruptionOverride{{Release: "gpu-operator", OverriddenBy: "alice",
			OverriddenAt: t0, Reason: "job checkpointed"}}
	}
	withEnv := func(opts ...func(*domain.Environment)) domain.Environment {
		e := env(t)
		for _, o := range opts {
			o(&e)
		}
		return e
	}
	tests := []struct {
		name    string
		spec    domain.RolloutSpec
		status  domain.RolloutStatus
		env     domain.Environment
		now     time.Time
		expect  func(r recorders, to string)
		stall   domain.StallReason
		message string
		requeue time.Duration
		event   string
	}{
		{name: "a disruptive step waits for the next window", spec: spec(t, disruptiveGPU), status: progressing(1),
			env: withEnv(mondayWindow("UTC")), now: t0, expect: func(r recorders, _ string) { gpuMissing(r) },
			stall: domain.StallOutsideChangeWindow, requeue: mondayOpens.Sub(t0),
			message: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) waits until 2026-03-02T02:00:00Z: " +
				"outside the change windows (Mon 02:00 UTC for 1h0m0s); it may disrupt the accelerated nodes: " +
				"gpu-operator runs node-level agents on the accelerated nodes"},
		{name: "a step that cannot disrupt goes on outside every window", spec: spec(t, disruptiveGPU),
			status: progressing(0), env: withEnv(mondayWindow("UTC")), now: t0,
			expect: func(r recorders, _ string) {
				r.engine.Status(gomock.Any(), ref("cert-manager")).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
				r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
			},
			requeue: 10 * time.Second, event: "rollout " + rolloutName + ": step 1/2 cert-manager (Install) started"},
		{name: "the disruptive step starts once its window opens", spec: spec(t, disruptiveGPU), status: progressing(1),
			env: withEnv(mondayWindow("UTC")), now: mondayOpens, expect: applyGPU,
			requeue: 10 * time.Second, event: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) started"},
		{name: "a window that closes mid-step lets the step in flight finish", spec: spec(t, disruptiveGPU),
			status: inFlight(1, mondayOpens.Add(55*time.Minute)), env: withEnv(mondayWindow("UTC")),
			now: mondayOpens.Add(65 * time.Minute),
			expect: func(r recorders, to string) {
				r.engine.Status(gomock.Any(), ref("gpu-operator")).Return(written(ref("gpu-operator"), to, false), nil)
			},
			requeue: 10 * time.Second},
		{name: "a protected workload on the accelerated nodes holds the step", spec: spec(t, disruptiveGPU),
			status: progressing(1), env: withEnv(protectTraining, func(e *domain.Environment) {
				e.ChangePolicy.ProtectedNamespaces = []string{"ml"}
			}), now: t0,
			expect: func(r recorders, _ string) {
				gpuMissing(r)
				r.work.Running(gomock.Any(), ports.WorkloadQuery{PodSelector: "app=train", Namespaces: []string{"ml"},
					NodeSelector: map[string]string{"nodeGroup": "gpu"}}).Return(training, nil)
			},
			stall: domain.StallProtectedWorkloadsRunning, requeue: 30 * time.Second,
			message: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) waits for protected workloads on the " +
				"accelerated nodes: ml/train-0 on gpu-1; it may disrupt them: gpu-operator runs node-level agents on the accelerated nodes"},
		{name: "the step starts once no protected workload runs", spec: spec(t, disruptiveGPU), status: progressing(1),
			env: withEnv(protectTraining), now: t0, expect: func(r recorders, to string) {
				r.work.Running(gomock.Any(), gomock.Any()).Return(nil, nil)
				applyGPU(r, to)
			},
			requeue: 10 * time.Second, event: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) started"},
		{name: "a step that cannot disrupt never looks at workloads", spec: spec(t, exemptGPU), status: progressing(1),
			env: withEnv(protectTraining), now: t0, expect: applyGPU,
			requeue: 10 * time.Second, event: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) started"},
		{name: "an approver's override lets the step go outside its window while a workload runs",
			spec: spec(t, disruptiveGPU, override), status: progressing(1),
			env: withEnv(mondayWindow("UTC"), protectTraining), now: t0, expect: applyGPU, requeue: 10 * time.Second,
			event: "rollout " + rolloutName + ": step 2/2 gpu-operator (Install) started, let go by alice outside the " +
				"change policy: job checkpointed"},
		{name: "a held step is looked at again when its approval expires, before its window opens",
			spec: spec(t, disruptiveGPU, approved), status: progressing(1), env: withEnv(mondayWindow("UTC")), now: t0,
			expect: func(r recorders, _ string) { gpuMissing(r) }, stall: domain.StallOutsideChangeWindow,
			requeue: 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := advanceAt(t, tt.spec, tt.status, tt.env, tt.now, tt.expect)
			if tt.stall == "" {
				assert.Nil(t, out.Stall)
			} else if assert.NotNil(t, out.Stall) {
				assert.Equal(t, tt.stall, out.Stall.Reason())
				if tt.message != "" {
					assert.Equal(t, tt.message, out.Stall.Message())
				}
				assert.Equal(t, domain.PhaseProgressing, out.Phase(), "a held step keeps the rollout in progress")
			}
			assert.Equal(t, tt.requeue, out.RequeueAfter)
			assert.Equal(t, tt.event, out.Event)
		})
	}
}

// exemptGPU records the gpu-operator step as one that cannot disrupt (the policy exempts it).
func exemptGPU(s *domain.RolloutSpec) { s.Steps[1].Disruption = "" }

func applyGPU(r recorders, _ string) {
	gpuMissing(r)
	r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
}

func TestAwaitingApproval_SaysWhenNoWindowOpensBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	e := env(t)
	mondayWindow("UTC")(&e)
	late := spec(t, needsApproval, disruptiveGPU, func(s *domain.RolloutSpec) { s.Deadline = t0.Add(6 * time.Hour) })
	out := advanceAt(t, late, domain.RolloutStatus{}, e, t0, func(r recorders, _ string) { pendingReady(r) })
	if assert.NotNil(t, out.Stall) {
		assert.Equal(t, domain.StallAwaitingApproval, out.Stall.Reason())
		assert.Equal(t, "rollout "+rolloutName+" awaiting approval; its deadline 2026-03-01T18:00:00Z falls before the "+
			"next change window (it opens at 2026-03-02T02:00:00Z): its disruptive step gpu-operator cannot start "+
			"before the deadline unless an approver overrides it", out.Stall.Message())
	}

	inTime := spec(t, needsApproval, disruptiveGPU, func(s *domain.RolloutSpec) { s.Deadline = t0.Add(24 * time.Hour) })
	out = advanceAt(t, inTime, domain.RolloutStatus{}, e, t0, func(r recorders, _ string) { pendingReady(r) })
	if assert.NotNil(t, out.Stall) {
		assert.Equal(t, "rollout "+rolloutName+" awaiting approval", out.Stall.Message(), "the window opens before the deadline")
	}
}
