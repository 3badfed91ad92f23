package domain_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestConfirmSucceeded_OnlyWhenTheEngineShowsTheTarget: an unsealed success is confirmed when
// the engine objects rebuild the rollout's target plan, and stalls OutcomeUnverified when they
// show another plan (a forged success of a rollout that never ran) or nothing.
func TestConfirmSucceeded_OnlyWhenTheEngineShowsTheTarget(t *testing.T) {
	t.Parallel()
	target := targetPlan(t)
	assert.Nil(t, domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, engineSpecs(t, target)))

	other := localPlan(t)
	for name, specs := range map[string][]domain.Plan{"another plan live": {*other}, "nothing live": nil} {
		var live []ports.ReleaseSpec
		for i := range specs {
			live = append(live, engineSpecs(t, &specs[i])...)
		}
		s := domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, live)
		require.NotNil(t, s, name)
		assert.Equal(t, domain.StallOutcomeUnverified, s.Reason(), name)
		assert.Contains(t, s.Message(), "rollout ro is labelled Succeeded without the operator's seal", name)
	}
}

// TestSealedOutcome_CoversTheOutcomeAndItsMessage: changing either changes what is sealed.
func TestSealedOutcome_CoversTheOutcomeAndItsMessage(t *testing.T) {
	t.Parallel()
	base := domain.SealedOutcome(domain.PhaseSucceeded, "rolled out")
	assert.False(t, bytes.Equal(base, domain.SealedOutcome(domain.PhaseFailed, "rolled out")))
	assert.False(t, bytes.Equal(base, domain.SealedOutcome(domain.PhaseSucceeded, "rolled out, validated")))
}
