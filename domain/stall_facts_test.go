package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

func TestStallFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  *domain.Stall
		want domain.StallReason
	}{
		{"request invalid", domain.RequestInvalid("bad flag"), domain.StallAICRInvalidRequest},
		{"artifact unreadable", domain.ArtifactUnreadable("not json"), domain.StallAICRArtifactUnsupported},
		{"artifact missing", domain.ArtifactMissing("recipe", "j", "artifact.json"), domain.StallAICRArtifactUnsupported},
		{"artifact kind", domain.ArtifactKindUnsupported("Recipe", "v1", "Other"), domain.StallAICRArtifactUnsupported},
		{"override unparsable", domain.OverrideUnparsable("a..b"), domain.StallInvalidOverride},
		{"snapshot unreadable", domain.SnapshotUnreadable("no gpu"), domain.StallSnapshotIncomplete},
		{"plan unreadable", domain.PlanUnreadable("digest differs"), domain.StallPlanUnreadable},
		{"plan record conflict", domain.PlanRecordConflict("other content"), domain.StallConflict},
		{"plan recipe missing", domain.PlanRecipeMissing("recipe gone"), domain.StallPlanWithoutRecipe},
		{"plan part too large", domain.PlanPartTooLarge("values", "sha256:0a", 2<<20), domain.StallContentTooLarge},
		{"steps unknown", domain.StepsUnknown("operation Foo"), domain.StallStepUnknown},
		{"change policy", domain.ChangePolicyUnreadable("unknown time zone"), domain.StallChangePolicyInvalid},
		{"port sentinel", domain.PortStall("engine", fmt.Errorf("x: %w", ports.ErrProjectMissing)), domain.StallProjectMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.got.Reason())
			assert.NotEmpty(t, tt.got.Message())
		})
	}
	assert.Nil(t, domain.PortStall("engine", errors.New("connection reset")), "a transient error is no stall")
}

func TestStallFromCondition(t *testing.T) {
	t.Parallel()
	s := domain.StallFromCondition(string(domain.StallRolloutFailed), "m")
	assert.Equal(t, domain.StallRolloutFailed, s.Reason())
	assert.Equal(t, "m", s.Message())
	assert.Nil(t, domain.StallFromCondition("NotAReason", "m"), "a reason outside StallReasons is not read back")
}

func TestOutcomeStall(t *testing.T) {
	t.Parallel()
	want := map[domain.Phase]domain.StallReason{
		domain.PhaseFailed: domain.StallRolloutFailed, domain.PhaseExpired: domain.StallRolloutExpired,
		domain.PhaseRevoked: domain.StallRolloutRevoked,
	}
	for _, p := range declaredPhases(t) {
		s := domain.OutcomeStall(p, "ro-1")
		if r, ok := want[p]; ok {
			assert.Equalf(t, r, s.Reason(), "phase %s", p)
			assert.Equal(t, "rollout ro-1 "+string(p), s.Message())
			continue
		}
		assert.Nilf(t, s, "phase %s reports no stall", p)
	}
}
