package cli_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApprove_ExpiresPastTheDeadlineIsRefused: an approval cannot outlive its rollout (RO-4,
// CLI-3). An --expires reaching past spec.deadline is refused with a message naming the
// deadline, and nothing is written; the API server refuses it whatever the client does.
func TestApprove_ExpiresPastTheDeadlineIsRefused(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := run(approverUser, "approve", name, "--expires", "25h", "--reason", "Maintenance window")

	requireRefused(t, r, "ends at "+now.Add(25*time.Hour).Format(time.RFC3339)+", after the rollout's deadline ("+
		deadline.Format(time.RFC3339)+"); omit --expires")
	assert.Nil(t, getRollout(t, name).Spec.Approval, "a refusal changes nothing")
}

// TestApprove_ExpiresAtTheDeadlineIsAccepted: an --expires that ends exactly at spec.deadline
// is the longest approval the API accepts (RO-4, CLI-3).
func TestApprove_ExpiresAtTheDeadlineIsAccepted(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)
	require.Equal(t, 24*time.Hour, deadline.Sub(now))

	r := run(approverUser, "approve", name, "--expires", "24h", "--reason", "Maintenance window")

	requireOK(t, r)
	assert.Equal(t, deadline, getRollout(t, name).Spec.Approval.ExpiresAt.UTC())
}
