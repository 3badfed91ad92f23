package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// TestTrustPlanRecord_SealedOrOlderThanTheKey: a plan record is read when its seal verifies,
// whenever it was created, or when it was created before the key was made (a plan of an
// operator that did not seal plans, or of the key before a rotation). An unsealed record created
// after the key, or at an unknown time, or under a key of unknown age, is refused.
func TestTrustPlanRecord_SealedOrOlderThanTheKey(t *testing.T) {
	t.Parallel()
	made := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	plan := ports.SealSubject{Kind: "ConfigMap", Namespace: "ns", Name: "aicr-plan-1", UID: "u"}
	content := []byte("plan")
	tests := []struct {
		name      string
		seal      string
		keyMadeAt time.Time
		createdAt time.Time
		trusted   bool
	}{
		{name: "sealed, created after the key", seal: "good", keyMadeAt: made, createdAt: made.Add(time.Hour), trusted: true},
		{name: "unsealed, created before the key", seal: "", keyMadeAt: made, createdAt: made.Add(-time.Hour), trusted: true},
		{name: "another key's seal, created before the key", seal: "old", keyMadeAt: made, createdAt: made.Add(-time.Hour), trusted: true},
		{name: "unsealed, created after the key", seal: "", keyMadeAt: made, createdAt: made.Add(time.Hour)},
		{name: "forged seal, created after the key", seal: "old", keyMadeAt: made, createdAt: made.Add(time.Hour)},
		{name: "unsealed, created with the key", seal: "", keyMadeAt: made, createdAt: made},
		{name: "unsealed, key of unknown age", seal: "", createdAt: made.Add(-time.Hour)},
		{name: "unsealed, created at an unknown time", seal: "", keyMadeAt: made},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seals := mocks.NewMockSealer(gomock.NewController(t))
			seals.EXPECT().KeyMadeAt().Return(tt.keyMadeAt).AnyTimes()
			seals.EXPECT().Verify(plan, content, tt.seal).DoAndReturn(func(_ ports.SealSubject, _ []byte, seal string) error {
				if seal == "good" {
					return nil
				}
				return ports.ErrBadSeal
			})
			err := domain.TrustPlanRecord(seals, plan, content, tt.seal, tt.createdAt)
			if tt.trusted {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ports.ErrBadSeal)
		})
	}
}
