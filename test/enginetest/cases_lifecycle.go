package enginetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func testCheck(t *testing.T, h Harness, _ string) {
	require.NoError(t, h.NewInstance(t).Engine.Check(t.Context()))
}

func testCreate(t *testing.T, h Harness, ns string) {
	in := h.NewInstance(t)
	s := spec(ns, "gpu-operator", "v25.10.1", ownerA)
	require.NoError(t, in.Engine.Apply(t.Context(), s))
	assert.Positive(t, in.Writes(), "Apply must write the engine object")

	st := status(t, in.Engine, s.Ref)
	assert.Equal(t, s.Ref, st.Ref)
	assert.Equal(t, ownerA, st.Owner)
	assert.NotEmpty(t, st.DesiredRevision)
	assert.False(t, st.Synced(), "nothing is synced before the engine reconciled")
	assert.False(t, st.Ready())
	assert.False(t, st.Suspended, "Apply enables automated sync")
}

func testUpdate(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	v1 := spec(ns, "network-operator", "v1.0.0", ownerA)
	require.NoError(t, in.Engine.Apply(ctx, v1))
	require.NoError(t, h.Observe(ctx, v1.Ref, healthy))
	st1 := status(t, in.Engine, v1.Ref)
	require.True(t, st1.Ready(), "observed healthy at v1: %+v", st1)

	v2 := spec(ns, "network-operator", "v2.0.0", ownerB)
	v2.Owner.RuntimeUID = ownerA.RuntimeUID
	require.NoError(t, in.Engine.Apply(ctx, v2))
	st2 := status(t, in.Engine, v2.Ref)
	assert.NotEqual(t, st1.DesiredRevision, st2.DesiredRevision, "a new chart digest is a new revision")
	assert.False(t, st2.Synced(), "v2 is not synced until the engine reconciles it")
	assert.Equal(t, v2.Owner, st2.Owner)

	require.NoError(t, h.Observe(ctx, v2.Ref, healthy))
	st3 := status(t, in.Engine, v2.Ref)
	assert.True(t, st3.Ready())
	assert.Equal(t, st2.DesiredRevision, st3.SyncedRevision)

	v3 := v2
	v3.Values = map[string]any{"replicas": 3}
	require.NoError(t, in.Engine.Apply(ctx, v3))
	assert.NotEqual(t, st3.DesiredRevision, status(t, in.Engine, v3.Ref).DesiredRevision,
		"a values change is a new revision")
}

func testIdempotent(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	s := spec(ns, "kai-scheduler", "v0.9.0", ownerA)
	require.NoError(t, in.Engine.Apply(ctx, s))
	written := in.Writes()
	require.NoError(t, in.Engine.Apply(ctx, s))
	assert.Equal(t, written, in.Writes(), "re-applying the same spec must not write")

	require.NoError(t, h.Observe(ctx, s.Ref, healthy))
	require.NoError(t, in.Engine.Apply(ctx, s))
	require.NoError(t, in.Engine.Adopt(ctx, s.Ref, ownerB.RuntimeUID, ownerA))
	require.NoError(t, in.Engine.Suspend(ctx, s.Ref, ownerA, false))
	assert.Equal(t, written, in.Writes(), "the engine's own status writes do not make Apply, Adopt or Suspend write")
	assert.True(t, status(t, in.Engine, s.Ref).Ready())
}

func testRemove(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	s := spec(ns, "dcgm-exporter", "v4.0.0", ownerA)
	require.NoError(t, in.Engine.Apply(ctx, s))
	guarded, err := h.CascadeGuarded(ctx, s.Ref)
	require.NoError(t, err)
	assert.False(t, guarded, "no cascade guard after Apply (ENG-3)")
	require.NoError(t, h.Observe(ctx, s.Ref, healthy))
	require.NoError(t, in.Engine.Apply(ctx, s))
	guarded, err = h.CascadeGuarded(ctx, s.Ref)
	require.NoError(t, err)
	assert.False(t, guarded, "no cascade guard while the release lives (ENG-3)")
	assert.False(t, status(t, in.Engine, s.Ref).Removing, "a live release is not being removed")

	require.NoError(t, in.Engine.Remove(ctx, s.Ref, ownerA))
	if st, statusErr := in.Engine.Status(ctx, s.Ref); statusErr == nil {
		assert.True(t, st.Removing, "an object still present after Remove reports the removal begun")
		guarded, err = h.CascadeGuarded(ctx, s.Ref)
		require.NoError(t, err)
		assert.True(t, guarded, "an object still present after Remove cascades")
		require.NoError(t, in.Engine.Remove(ctx, s.Ref, ownerA), "Remove while deleting is idempotent")
	}
	require.NoError(t, h.CompleteRemoval(ctx, s.Ref))
	_, err = in.Engine.Status(ctx, s.Ref)
	require.ErrorIs(t, err, ports.ErrTargetNotFound)

	written := in.Writes()
	require.NoError(t, in.Engine.Remove(ctx, s.Ref, ownerA), "removing a missing object is success")
	assert.Equal(t, written, in.Writes())
}

func testMissing(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	ref := ports.ReleaseRef{ID: "absent", Namespace: ns}
	_, err := in.Engine.Status(ctx, ref)
	require.ErrorIs(t, err, ports.ErrTargetNotFound)
	require.ErrorIs(t, in.Engine.Adopt(ctx, ref, ownerB.RuntimeUID, ownerA), ports.ErrTargetNotFound)
	require.ErrorIs(t, in.Engine.Suspend(ctx, ref, ownerA, true), ports.ErrTargetNotFound)
	require.NoError(t, in.Engine.Remove(ctx, ref, ownerA))
	assert.Zero(t, in.Writes())
}
