package enginetest

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func testStatusMapping(t *testing.T, h Harness, ns string) {
	cases := []struct {
		name      string
		observe   Observation
		synced    bool
		ready     bool
		hasDetail bool
	}{
		{"healthy", healthy, true, true, false},
		{"degraded", Observation{Synced: true, Health: ports.HealthDegraded, Operation: ports.OperationSucceeded}, true, false, true},
		{"never-settles", Observation{Synced: true, Health: ports.HealthProgressing, Operation: ports.OperationSucceeded}, true, false, false},
		{"out-of-sync-after-sync", Observation{Synced: false, Health: ports.HealthHealthy, Operation: ports.OperationSucceeded}, false, false, false},
		{"sync-failed", Observation{Synced: false, Health: ports.HealthMissing, Operation: ports.OperationFailed}, false, false, true},
		{"syncing", Observation{Synced: false, Health: ports.HealthProgressing, Operation: ports.OperationRunning}, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, in := t.Context(), h.NewInstance(t)
			s := spec(ns, c.name, "v1.0.0", ownerA)
			require.NoError(t, in.Engine.Apply(ctx, s))
			require.NoError(t, h.Observe(ctx, s.Ref, c.observe))
			st := status(t, in.Engine, s.Ref)
			assert.Equal(t, c.observe.Health, st.Health)
			assert.Equal(t, c.observe.Operation, st.Operation)
			assert.Equal(t, c.synced, st.Synced(), "%+v", st)
			assert.Equal(t, c.ready, st.Ready())
			assert.False(t, st.LastSyncAt.IsZero(), "an observed operation has a start time")
			if c.hasDetail {
				assert.NotEmpty(t, st.Message)
			}
		})
	}
}

func testList(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	other := ns + "-b"
	for _, s := range []ports.ReleaseSpec{spec(other, "zeta", "v1", ownerA), spec(ns, "zeta", "v1", ownerB), spec(ns, "alpha", "v1", ownerA)} {
		require.NoError(t, in.Engine.Apply(ctx, s))
	}
	require.NoError(t, h.CreateForeign(ctx, ports.ReleaseRef{ID: "foreign", Namespace: ns}))
	list, err := in.Engine.List(ctx)
	require.NoError(t, err)
	assert.True(t, slices.IsSortedFunc(list, func(a, b ports.ReleaseStatus) int {
		return cmp.Or(cmp.Compare(a.Ref.Namespace, b.Ref.Namespace), cmp.Compare(a.Ref.ID, b.Ref.ID))
	}), "List is sorted by namespace and ID")
	var mine []ports.ReleaseStatus
	for _, st := range list {
		if st.Ref.Namespace == ns || st.Ref.Namespace == other {
			mine = append(mine, st)
		}
	}
	require.Len(t, mine, 3, "the foreign object carries no operator label")
	assert.Equal(t, ports.ReleaseRef{ID: "alpha", Namespace: ns}, mine[0].Ref)
	assert.Equal(t, ownerB, mine[1].Owner, "List reports every runtime UID")
	assert.Equal(t, ports.ReleaseRef{ID: "zeta", Namespace: other}, mine[2].Ref)
}

func testSuspend(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	s := spec(ns, "nvsentinel", "v1.0.0", ownerA)
	require.NoError(t, in.Engine.Apply(ctx, s))
	require.NoError(t, in.Engine.Suspend(ctx, s.Ref, ownerA, true))
	assert.True(t, status(t, in.Engine, s.Ref).Suspended)
	written := in.Writes()
	require.NoError(t, in.Engine.Suspend(ctx, s.Ref, ownerA, true))
	assert.Equal(t, written, in.Writes(), "suspending twice writes once")
	require.NoError(t, in.Engine.Suspend(ctx, s.Ref, ownerA, false))
	assert.False(t, status(t, in.Engine, s.Ref).Suspended)

	require.NoError(t, h.Observe(ctx, s.Ref, Observation{Health: ports.HealthProgressing, Operation: ports.OperationRunning}))
	require.ErrorIs(t, in.Engine.Suspend(ctx, s.Ref, ownerA, true), ports.ErrSuspensionRefused)
	assert.False(t, status(t, in.Engine, s.Ref).Suspended)
}
