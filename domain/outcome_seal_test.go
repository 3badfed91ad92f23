package domain_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// TestConfirmSucceeded_OnlyWhenTheEngineShowsTheTarget: an unsealed success is confirmed when
// every engine object of the runtime records the rollout's target plan, some lost with a
// restore included, and stalls OutcomeUnverified when one records another plan (a forged
// success of a rollout that never ran, or ran only in part) or none is there.
func TestConfirmSucceeded_OnlyWhenTheEngineShowsTheTarget(t *testing.T) {
	t.Parallel()
	target := targetPlan(t)
	live := engineSpecs(t, target)
	require.Greater(t, len(live), 1)
	assert.Nil(t, domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, live))
	assert.Nil(t, domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, live[1:]), "a release lost with a restore")
	foreign := live[0]
	foreign.Owner.RuntimeUID = "another runtime"
	assert.Nil(t, domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, append([]ports.ReleaseSpec{foreign}, live[1:]...)),
		"another runtime's objects do not count")

	other := localPlan(t)
	partly := append(engineSpecs(t, other)[:1], live[1:]...)
	for name, specs := range map[string][]ports.ReleaseSpec{"another plan live": engineSpecs(t, other), "partly": partly, "nothing live": nil} {
		s := domain.ConfirmSucceeded("ro", target.RuntimeUID, target.Digest, specs)
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

// TestSealedSuccess_OnlyASucceededLabelUnderAValidSeal: a success counts only when the sealer
// verifies the seal over the outcome and message on that rollout; another outcome is never a
// success, whatever its seal, and is not even checked.
func TestSealedSuccess_OnlyASucceededLabelUnderAValidSeal(t *testing.T) {
	t.Parallel()
	seals := mocks.NewMockSealer(gomock.NewController(t))
	ro := ports.SealSubject{Kind: "RuntimeRollout", Name: "ro", UID: "u"}
	sealed := domain.SealedOutcome(domain.PhaseSucceeded, "rolled out")
	seals.EXPECT().Verify(ro, sealed, "good").Return(nil)
	seals.EXPECT().Verify(ro, sealed, "forged").Return(ports.ErrBadSeal)

	assert.True(t, domain.SealedSuccess(seals, ro, domain.PhaseSucceeded, "rolled out", "good"))
	assert.False(t, domain.SealedSuccess(seals, ro, domain.PhaseSucceeded, "rolled out", "forged"))
	assert.False(t, domain.SealedSuccess(seals, ro, domain.PhaseFailed, "rolled out", "good"))
}
