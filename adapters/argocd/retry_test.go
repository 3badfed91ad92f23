package argocd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// TestRetryRequestsASyncAfterAFailedOne: Argo CD does not sync a source again whose last sync
// failed, so a new rollout applying the same release requests a sync operation in the one
// write its step makes; the rollout that saw the failure, writing again, requests none, and a
// release whose last sync succeeded gets none either.
func TestRetryRequestsASyncAfterAFailedOne(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	s := release("retry", "retry-app")
	require.NoError(t, e.Apply(ctx, s))
	sim.SetMode(s.Ref, argocdsim.SyncFailed)
	_, err := sim.Settle(ctx, s.Ref)
	require.NoError(t, err)
	sim.SetMode(s.Ref, argocdsim.Healthy)
	wrote, err := sim.Settle(ctx, s.Ref)
	require.NoError(t, err)
	assert.False(t, wrote, "automated sync skips the source whose last attempt failed")

	require.NoError(t, e.Apply(ctx, s))
	assert.Nil(t, getApp(t, s.Ref).Operation, "the rollout that saw the failure does not retry by itself")

	before := writes.Load()
	s.Owner.Rollout = "rollout-0123456789abcdef-2"
	require.NoError(t, e.Apply(ctx, s))
	assert.Equal(t, int64(1), writes.Load()-before, "the retry is one write")
	app := getApp(t, s.Ref)
	require.NotNil(t, app.Operation)
	require.NotNil(t, app.Operation.Sync)
	assert.Equal(t, argov1.OperationInitiator{Username: argocd.OperationInitiator}, app.Operation.InitiatedBy)
	assert.Equal(t, argov1.RetryStrategy{Limit: 5}, app.Operation.Retry, "retried as Argo CD's automated sync retries")
	assert.True(t, app.Operation.Sync.Prune)
	assert.Equal(t, []string{"CreateNamespace=true", "ServerSideApply=true"}, app.Operation.Sync.SyncOptions)
	assert.Empty(t, app.Operation.Sync.Revision, "the spec's pinned target revision")

	_, err = sim.Settle(ctx, s.Ref)
	require.NoError(t, err)
	app = getApp(t, s.Ref)
	assert.Nil(t, app.Operation, "Argo CD ran the operation")
	require.NotNil(t, app.Status.OperationState)
	assert.Equal(t, argov1.OperationPhase("Succeeded"), app.Status.OperationState.Phase)

	s.Owner.Rollout = "rollout-0123456789abcdef-3"
	require.NoError(t, e.Apply(ctx, s))
	assert.Nil(t, getApp(t, s.Ref).Operation, "nothing to retry after a successful sync")
}
