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

// TestTrustedEvidence_OnlyUnderTheOperatorsSeal: a rollout's evidence reference is returned only
// when the sealer verifies the seal over it on that rollout; no evidence asks nothing of the
// sealer, and a reference whose seal does not verify is refused with ErrBadSeal.
func TestTrustedEvidence_OnlyUnderTheOperatorsSeal(t *testing.T) {
	t.Parallel()
	seals := mocks.NewMockSealer(gomock.NewController(t))
	ro := ports.SealSubject{Kind: "RuntimeRollout", Name: "ro", UID: "u"}
	const digest = "sha256:" + "ab"
	seals.EXPECT().Verify(ro, domain.SealedEvidence(digest), "good").Return(nil)
	seals.EXPECT().Verify(ro, domain.SealedEvidence(digest), "copied").Return(ports.ErrBadSeal)

	got, err := domain.TrustedEvidence(seals, ro, digest, "good")
	require.NoError(t, err)
	assert.Equal(t, ports.Digest(digest), got)

	got, err = domain.TrustedEvidence(seals, ro, digest, "copied")
	require.ErrorIs(t, err, ports.ErrBadSeal)
	assert.Empty(t, got)

	got, err = domain.TrustedEvidence(seals, ro, "", "")
	require.NoError(t, err)
	assert.Empty(t, got)
}

// TestSealedEvidence_NeverAnOutcomeSeal: what the evidence seal covers is not what any outcome
// seal covers, so a rollout's outcome seal never verifies as its evidence seal.
func TestSealedEvidence_NeverAnOutcomeSeal(t *testing.T) {
	t.Parallel()
	ev := domain.SealedEvidence("sha256:ab")
	for _, phase := range []domain.Phase{domain.PhaseSucceeded, domain.PhaseFailed, ""} {
		assert.False(t, bytes.Equal(ev, domain.SealedOutcome(phase, "sha256:ab")))
		assert.False(t, bytes.HasPrefix(domain.SealedOutcome(phase, "x"), []byte("evidence\n")))
	}
}
