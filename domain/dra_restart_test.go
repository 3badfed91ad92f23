package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestPlanTransition_DRARestartAfterGPUOperatorUpgrade: the DRA driver's step waits for an
// acknowledgement of the kubelet plugin's restart exactly when the GPU Operator is upgraded
// before it in the same transition, whatever the DRA driver's own operation.
func TestPlanTransition_DRARestartAfterGPUOperatorUpgrade(t *testing.T) {
	t.Parallel()
	gpu, dra, other := release("gpu-operator"), release("nvidia-dra-driver-gpu"), release("kai-scheduler")
	dra.DependsOnComponents = []string{"gpu-operator"}
	newer := func(r ports.BundleRelease) ports.BundleRelease {
		r.Chart.Version = "2.0.0"
		return r
	}
	tests := []struct {
		name         string
		active, next []ports.BundleRelease
		acknowledge  bool
	}{
		{"driver upgraded, DRA driver unchanged", []ports.BundleRelease{gpu, dra}, []ports.BundleRelease{newer(gpu), dra}, true},
		{"driver and DRA driver upgraded", []ports.BundleRelease{gpu, dra}, []ports.BundleRelease{newer(gpu), newer(dra)}, true},
		{"DRA driver installed after a driver upgrade", []ports.BundleRelease{gpu}, []ports.BundleRelease{newer(gpu), dra}, true},
		{"DRA driver upgraded alone", []ports.BundleRelease{gpu, dra}, []ports.BundleRelease{gpu, newer(dra)}, false},
		{"another release upgraded", []ports.BundleRelease{gpu, dra, other}, []ports.BundleRelease{gpu, dra, newer(other)}, false},
		{"initial install", nil, []ports.BundleRelease{gpu, dra}, false},
		{"DRA driver removed", []ports.BundleRelease{gpu, dra}, []ports.BundleRelease{newer(gpu)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := domain.TransitionInput{Target: planOf(t, tt.next...)}
			if tt.active != nil {
				in.Active = planOf(t, tt.active...)
			}
			tr, err := domain.PlanTransition(in)
			require.NoError(t, err)
			draStep := -1
			for i, s := range tr.Steps {
				if s.Component == "nvidia-dra-driver-gpu" {
					draStep = i
				} else {
					assert.False(t, s.AcknowledgeBeforeApply, "only the DRA driver's step waits: %s", s.Release.ID)
				}
			}
			require.GreaterOrEqual(t, draStep, 0)
			assert.Equal(t, tt.acknowledge, tr.Steps[draStep].AcknowledgeBeforeApply)
			var restart bool
			for _, why := range domain.ApprovalReasons(tt.active == nil, tr.Steps) {
				if strings.Contains(why.Why, "kubelet plugin restarted") {
					restart = true
					assert.Equal(t, "nvidia-dra-driver-gpu", why.Release)
				}
			}
			assert.Equal(t, tt.acknowledge, restart, "the approver is told about the restart")
			if tt.acknowledge {
				assert.True(t, tr.ApprovalRequired, "an acknowledgement needs an approver")
			}
		})
	}
}

// TestAdvance_DRARestartWaitsForTheAcknowledgement: the DRA driver's step after a GPU Operator
// upgrade stalls AwaitingAcknowledgement with the restart in its message, and applies once
// acknowledged.
func TestAdvance_DRARestartWaitsForTheAcknowledgement(t *testing.T) {
	t.Parallel()
	p := planOf(t, release("gpu-operator"), release("nvidia-dra-driver-gpu"))
	s := spec(t, approved)
	s.ToPlanDigest = p.Digest
	s.Steps = []domain.Step{
		{Release: p.Releases[0].Ref(), Component: "gpu-operator", Operation: domain.OpUpgrade},
		{Release: p.Releases[1].Ref(), Component: "nvidia-dra-driver-gpu", Operation: domain.OpVerify,
			AcknowledgeBeforeApply: true},
	}
	e := env(t)
	e.Target, e.TargetPlanDigest = p, p.Digest
	st := domain.RolloutStatus{Phase: domain.PhaseAwaitingAcknowledgement, Step: 1}
	out := advanceAt(t, s, st, e, t0.Add(time.Minute), nil)
	require.NotNil(t, out.Stall)
	assert.Equal(t, domain.StallAwaitingAcknowledgement, out.Stall.Reason())
	assert.Contains(t, out.Stall.Message(), "the DRA driver's kubelet plugin restarted after the upgraded GPU Operator's driver")
	assert.Contains(t, out.Stall.Message(), "before the apply of nvidia-dra-driver-gpu")
	assert.Equal(t, domain.PhaseAwaitingAcknowledgement, out.Phase())
}

// planOf builds a plan of a v1 bundle of rels, in their order.
func planOf(t *testing.T, rels ...ports.BundleRelease) *domain.Plan {
	t.Helper()
	ordered := make([]ports.BundleRelease, len(rels))
	for i, r := range rels {
		r.Order = i + 1
		ordered[i] = r
	}
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: v1Bundle(ordered...)})
	require.NoError(t, err)
	return p
}
