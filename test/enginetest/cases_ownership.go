package enginetest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

func testForeign(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	s := spec(ns, "cert-manager", "v1.17.2", ownerA)
	require.NoError(t, h.CreateForeign(ctx, s.Ref))
	before := status(t, in.Engine, s.Ref)
	assert.Empty(t, before.Owner.RuntimeUID, "a foreign object records no runtime UID")

	require.ErrorIs(t, in.Engine.Apply(ctx, s), ports.ErrForeignObject)
	require.ErrorIs(t, in.Engine.Remove(ctx, s.Ref, ownerA), ports.ErrForeignObject)
	require.ErrorIs(t, in.Engine.Adopt(ctx, s.Ref, ownerB.RuntimeUID, ownerA), ports.ErrForeignObject)
	require.ErrorIs(t, in.Engine.Suspend(ctx, s.Ref, ownerA, true), ports.ErrForeignObject)
	assert.Zero(t, in.Writes(), "a foreign object is never modified")
	assert.Equal(t, before, status(t, in.Engine, s.Ref))
}

func testOtherRuntime(t *testing.T, h Harness, ns string) {
	ctx, a, b := t.Context(), h.NewInstance(t), h.NewInstance(t)
	s := spec(ns, "gpu-operator", "v25.10.1", ownerA)
	require.NoError(t, a.Engine.Apply(ctx, s))
	desired := status(t, a.Engine, s.Ref).DesiredRevision

	sb := s
	sb.Owner = ownerB
	require.ErrorIs(t, b.Engine.Apply(ctx, sb), ports.ErrForeignObject)
	require.ErrorIs(t, b.Engine.Remove(ctx, s.Ref, ownerB), ports.ErrForeignObject)
	require.ErrorIs(t, b.Engine.Adopt(ctx, s.Ref, "another-runtime", ownerB), ports.ErrForeignObject)
	require.ErrorIs(t, b.Engine.Suspend(ctx, s.Ref, ownerB, true), ports.ErrForeignObject)
	assert.Zero(t, b.Writes(), "an object of another runtime is never modified")
	assert.False(t, status(t, b.Engine, s.Ref).Suspended, "another runtime cannot suspend the object")

	require.NoError(t, b.Engine.Adopt(ctx, s.Ref, ownerA.RuntimeUID, ownerB))
	st := status(t, b.Engine, s.Ref)
	assert.Equal(t, ownerB, st.Owner)
	assert.Equal(t, desired, st.DesiredRevision, "Adopt changes neither chart nor values")
	written := b.Writes()
	require.NoError(t, b.Engine.Adopt(ctx, s.Ref, ownerA.RuntimeUID, ownerB))
	assert.Equal(t, written, b.Writes(), "adopting twice writes once")
	require.ErrorIs(t, a.Engine.Apply(ctx, s), ports.ErrForeignObject, "the previous runtime lost the object")
}

func testNullValues(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	cases := map[string]map[string]any{
		"with-nulls": {
			"tolerations": nil,
			"driver":      map[string]any{"version": "580.95.05", "rdma": nil, "enabled": true},
			"list":        []any{"a", nil},
			"version":     "24.04",
		},
		"without-nulls": {"replicas": 3, "labels": map[string]any{"tier": "gpu"}, "ratio": 0.5},
	}
	for id, values := range cases {
		s := spec(ns, id, "v1.0.0", ownerA)
		s.Values = values
		require.NoError(t, in.Engine.Apply(ctx, s))
		stored, err := h.StoredValues(ctx, s.Ref)
		require.NoError(t, err)
		want, err := json.Marshal(values)
		require.NoError(t, err)
		got, err := json.Marshal(stored)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "values pass through unchanged, explicit nulls included")

		written := in.Writes()
		require.NoError(t, in.Engine.Apply(ctx, s))
		assert.Equal(t, written, in.Writes(), "%s: re-apply after the round trip does not write", id)
	}
}

// testSpecsRoundTrip checks that Specs returns what Apply wrote (PLAN-7): every
// field of the spec, explicit nulls in values included, for the releases of
// the namespace, and the new owner after an Adopt.
func testSpecsRoundTrip(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	first := spec(ns, "alpha", "v1.0.0", ownerA)
	first.Position, first.Component, first.Kind = 0, "cert-manager", ports.KindUpstream
	first.Chart.ArchiveDigest = digest("archive")
	first.Values = map[string]any{"tolerations": nil, "driver": map[string]any{"rdma": nil, "enabled": true}, "replicas": 2}
	first.DependsOn = nil
	second := spec(ns, "beta", "v2.0.0", ownerA)
	second.Position, second.Component, second.Kind = 1, "wrapper", ports.KindLocal
	second.Chart.Repository, second.ContentDigest = "", digest("content")
	second.Policy = ports.EnginePolicy{ServerSideApply: true}
	second.DependsOn = []string{"alpha"}
	for _, s := range []ports.ReleaseSpec{second, first} {
		require.NoError(t, in.Engine.Apply(ctx, s))
	}
	got := namespaceSpecs(t, in.Engine, ns)
	require.Len(t, got, 2)
	for i, want := range []ports.ReleaseSpec{first, second} {
		assertSpec(t, want, got[i])
	}

	adopted := ownerB
	require.NoError(t, in.Engine.Adopt(ctx, first.Ref, ownerA.RuntimeUID, adopted))
	got = namespaceSpecs(t, in.Engine, ns)
	first.Owner = adopted
	assertSpec(t, first, got[0])
}

// namespaceSpecs returns the specs Specs reports for the releases of ns.
func namespaceSpecs(t *testing.T, e ports.DeploymentEngine, ns string) []ports.ReleaseSpec {
	t.Helper()
	all, err := e.Specs(t.Context())
	require.NoError(t, err)
	var out []ports.ReleaseSpec
	for _, s := range all {
		if s.Ref.Namespace == ns {
			out = append(out, s)
		}
	}
	return out
}

// assertSpec compares two specs, values as JSON (numbers may come back as float64).
func assertSpec(t *testing.T, want, got ports.ReleaseSpec) {
	t.Helper()
	wantValues, err := json.Marshal(want.Values)
	require.NoError(t, err)
	gotValues, err := json.Marshal(got.Values)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantValues), string(gotValues), "%s: values round-trip, explicit nulls included", want.Ref)
	want.Values, got.Values = nil, nil
	assert.Equal(t, want, got, "%s: Specs returns the applied spec", want.Ref)
}
