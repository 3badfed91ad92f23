package domain_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestReadyCondition_Messages: every Ready reason of CR-8 with its message, in the order the
// checks apply; EngineSuspended only once the engine objects show the suspension.
func TestReadyCondition_Messages(t *testing.T) {
	t.Parallel()
	suspended := domain.Suspension{Suspend: true, Objects: 1}
	suspending := domain.Suspension{Suspend: true, Objects: 1, Writes: []ports.ReleaseRef{{ID: "a", Namespace: "b"}}}
	steps := make([]domain.Step, 18)
	steps[8] = domain.Step{Release: ports.ReleaseRef{ID: "gpu-operator"}, Operation: domain.OpUpgrade}
	rolling := func(v domain.RolloutView) domain.ReadyInput {
		v.Name, v.Exists, v.Steps = "r1", true, steps
		return domain.ReadyInput{ActivePlanDigest: "sha256:a", TargetPlanDigest: "sha256:b", Rollout: v}
	}
	tests := []struct {
		name       string
		in         domain.ReadyInput
		wantReason string
		wantMsg    string
	}{
		{"step", rolling(domain.RolloutView{Phase: domain.PhaseProgressing, Step: 8}),
			domain.ReasonRollingOut, "rollout r1: step 9/18 gpu-operator (Upgrade)"},
		{"approval", rolling(domain.RolloutView{Phase: domain.PhaseAwaitingApproval,
			Stall: domain.StallFromCondition(string(domain.StallAwaitingApproval), "x")}),
			domain.ReasonRollingOut, "rollout r1 awaiting approval"},
		{"validation", rolling(domain.RolloutView{Phase: domain.PhaseValidating, Run: "run-7"}),
			domain.ReasonRollingOut, "rollout r1: deployment validation run run-7"},
		{"stalled", rolling(domain.RolloutView{Phase: domain.PhaseFailed,
			Stall: domain.StallFromCondition(string(domain.StallRolloutFailed), "step 2/3 x (Install) sync failed")}),
			domain.ReasonRollingOut, "rollout r1 stalled: step 2/3 x (Install) sync failed"},
		{"no rollout yet", domain.ReadyInput{TargetPlanDigest: "sha256:b"},
			domain.ReasonRollingOut, "target plan sha256:b is not rolled out yet"},
		{"rolled out", domain.ReadyInput{ActivePlanDigest: "sha256:a", TargetPlanDigest: "sha256:a", ReleasesReady: true},
			domain.ReasonRolledOut, "plan sha256:a rolled out and validated"},
		{"drifted from the plan", domain.ReadyInput{ActivePlanDigest: "sha256:a", TargetPlanDigest: "sha256:a", ReleasesReady: true,
			DriftStall: domain.SpecDrifted("sha256:a", []ports.ReleaseRef{{ID: "gpu-operator", Namespace: "gpu-operator"}})},
			string(domain.StallEngineObjectDrifted), "the engine objects of gpu-operator/gpu-operator ask for another spec " +
				"than plan sha256:a renders for them (edited outside the operator): undo the edit, or roll out a plan that writes them again"},
		{"engine", domain.ReadyInput{EngineStall: domain.StallFromCondition(string(domain.StallEngineMissing), "m")},
			string(domain.StallEngineMissing), "m"},
		{"paused", domain.ReadyInput{Paused: true}, domain.ReasonPaused, "the runtime is paused (spec.paused)"},
		{"deleting comes first", domain.ReadyInput{Deleting: true, Paused: true, EngineStall: domain.StallFromCondition(string(domain.StallEngineMissing), "")},
			domain.ReasonDeleting, "the ClusterRuntime is being deleted"},
		{"engine suspended once it holds", domain.ReadyInput{ActivePlanDigest: "sha256:a", TargetPlanDigest: "sha256:a",
			ReleasesReady: true, Suspension: &suspended}, domain.ReasonEngineSuspended,
			"automated sync is off on all 1 engine objects of the runtime (spec.suspendEngine)"},
		{"engine suspension not yet true of the engine objects", domain.ReadyInput{ActivePlanDigest: "sha256:a",
			TargetPlanDigest: "sha256:a", ReleasesReady: true, Suspension: &suspending},
			domain.ReasonRolledOut, "plan sha256:a rolled out and validated"},
		{"engine suspension refused", domain.ReadyInput{Paused: true, Suspension: &suspending, SuspensionStall: domain.StallFromCondition(string(domain.StallEngineSuspensionRefused), "suspend a/b: syncing")},
			string(domain.StallEngineSuspensionRefused), "suspend a/b: syncing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := domain.ReadyCondition(tt.in)
			assert.Equal(t, tt.wantReason, c.Reason)
			assert.Equal(t, tt.wantMsg, c.Message)
		})
	}
}

// TestUnplannedCondition: EngineObjectsPlanned is True with no unplanned engine object, False
// naming them (at most ten) otherwise.
func TestUnplannedCondition(t *testing.T) {
	t.Parallel()
	ok := domain.UnplannedCondition(nil)
	assert.Equal(t, domain.ConditionTrue, ok.Status)
	assert.Equal(t, domain.ReasonEveryEngineObjectPlanned, ok.Reason)
	bad := domain.UnplannedCondition([]string{"argocd/x.y"})
	assert.Equal(t, domain.ConditionFalse, bad.Status)
	assert.Equal(t, domain.ReasonUnplannedEngineObjects, bad.Reason)
	assert.Contains(t, bad.Message, "argocd/x.y")
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("app-%02d", i)
	}
	long := domain.UnplannedCondition(many)
	assert.Contains(t, long.Message, "12 engine objects")
	assert.NotContains(t, long.Message, "app-10")
	assert.True(t, strings.HasSuffix(long.Message, ", ..."))
}

func TestStalledFromResolved(t *testing.T) {
	t.Parallel()
	assert.Nil(t, domain.StalledFromResolved(domain.Condition{Status: domain.ConditionFalse, Reason: domain.ReasonResolving}))
	assert.Nil(t, domain.StalledFromResolved(domain.Condition{Status: domain.ConditionTrue, Reason: "Resolved"}))
	s := domain.StalledFromResolved(domain.Condition{Status: domain.ConditionFalse, Reason: "AICRTimeout", Message: "m"})
	assert.Equal(t, domain.StallFromCondition(string(domain.StallAICRTimeout), "m"), s)
}

func TestAvailableCondition(t *testing.T) {
	t.Parallel()
	healthy := domain.ReleaseAvailability{ID: "a", Healthy: true, Counted: true}
	sick := domain.ReleaseAvailability{ID: "b", Counted: true}
	assert.Equal(t, domain.ConditionTrue, domain.AvailableCondition([]domain.ReleaseAvailability{healthy}, "").Status)
	assert.Equal(t, domain.ConditionFalse, domain.AvailableCondition([]domain.ReleaseAvailability{healthy, sick}, "").Status)
	removing, installing, inFlight := sick, sick, sick
	removing.Removing, installing.Installing, inFlight.InFlight = true, true, true
	for _, r := range []domain.ReleaseAvailability{removing, installing} {
		assert.Equal(t, domain.ConditionTrue, domain.AvailableCondition([]domain.ReleaseAvailability{healthy, r}, "").Status)
	}
	assert.Equal(t, domain.ConditionTrue,
		domain.AvailableCondition([]domain.ReleaseAvailability{inFlight}, domain.ConditionTrue).Status)
	assert.Equal(t, domain.ConditionFalse,
		domain.AvailableCondition([]domain.ReleaseAvailability{inFlight}, domain.ConditionFalse).Status)
	drifted := healthy
	drifted.Drifted = true
	c := domain.AvailableCondition([]domain.ReleaseAvailability{drifted}, domain.ConditionTrue)
	assert.Equal(t, domain.ConditionFalse, c.Status, "a healthy release edited outside the operator is not available at its plan")
	assert.Equal(t, "release a asks for another spec than its plan renders", c.Message)
}
