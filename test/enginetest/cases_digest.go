package enginetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSpecDigest: the spec digest Status reports for an object Apply wrote is the one
// SpecDigest renders from the same spec, whoever owns it; another chart, values or policy
// renders another digest, which the object then matches only once applied.
func testSpecDigest(t *testing.T, h Harness, ns string) {
	ctx, in := t.Context(), h.NewInstance(t)
	s := spec(ns, "digest", "v1.0.0", ownerA)
	require.NoError(t, in.Engine.Apply(ctx, s))
	planned, err := in.Engine.SpecDigest(s)
	require.NoError(t, err)
	assert.True(t, status(t, in.Engine, s.Ref).Matches(planned), "the written object is the spec's")
	adopted := s
	adopted.Owner = ownerB
	same, err := in.Engine.SpecDigest(adopted)
	require.NoError(t, err)
	assert.Equal(t, planned, same, "the owner does not enter the digest")

	changed := s
	changed.Values = map[string]any{"replicas": 3}
	other, err := in.Engine.SpecDigest(changed)
	require.NoError(t, err)
	assert.NotEqual(t, planned, other, "other values render another spec")
	assert.False(t, status(t, in.Engine, s.Ref).Matches(other), "the object does not ask for a spec not applied")
	require.NoError(t, in.Engine.Apply(ctx, changed))
	assert.True(t, status(t, in.Engine, s.Ref).Matches(other))
}
