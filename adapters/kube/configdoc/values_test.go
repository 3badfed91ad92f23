package configdoc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// valuesPlan is a plan of two releases whose values hold explicit nulls, nesting, lists,
// non-ASCII text and numbers, with their valuesDigest as BuildPlan records it.
func valuesPlan(t *testing.T) *domain.Plan {
	t.Helper()
	p := &domain.Plan{Releases: []domain.Release{
		{ID: "cert-manager", Values: map[string]any{
			"crds": map[string]any{"enabled": true, "keep": nil}, "replicaCount": float64(2), "note": "é<&>", "gone": nil,
		}},
		{ID: "gpu-operator.v1", Values: map[string]any{"list": []any{"a", 1.5, nil, map[string]any{}}, "tiny": 1e-7}},
		{ID: "empty", Values: map[string]any{}},
	}}
	for i := range p.Releases {
		d, err := domain.Digest(p.Releases[i].Values)
		require.NoError(t, err)
		p.Releases[i].ValuesDigest = d
	}
	return p
}

// TestValues_PLAN3_RoundTripKeepsNulls: each release's values are stored as canonical JSON
// under its ID, the reference's digest is the release's valuesDigest, and decoding gives the
// values back exactly, explicit nulls included.
func TestValues_PLAN3_RoundTripKeepsNulls(t *testing.T) {
	t.Parallel()
	p := valuesPlan(t)
	v, refs, err := configdoc.EncodeValues(p)
	require.NoError(t, err)
	assert.Regexp(t, `^aicr-values-[0-9a-f]{16}$`, v.Name)
	assert.Equal(t, `{"crds":{"enabled":true,"keep":null},"gone":null,"note":"\u00e9<&>","replicaCount":2}`, v.Data["cert-manager"])
	require.Len(t, refs, len(p.Releases))
	for i, r := range p.Releases {
		assert.Equal(t, configdoc.ValuesRef{Name: v.Name, Key: r.ID, Digest: r.ValuesDigest}, refs[i])
		got, err := configdoc.DecodeValues(refs[i], r.ValuesDigest, v.Data)
		require.NoError(t, err)
		assert.Equal(t, r.Values, got, r.ID)
		d, err := domain.Digest(got)
		require.NoError(t, err)
		assert.Equal(t, r.ValuesDigest, d, r.ID)
	}
	assert.Contains(t, v.Data, "empty")
}

// TestValues_PLAN3_NameIsContentAddressed: equal values give the same ConfigMap name, other
// values another.
func TestValues_PLAN3_NameIsContentAddressed(t *testing.T) {
	t.Parallel()
	a, _, err := configdoc.EncodeValues(valuesPlan(t))
	require.NoError(t, err)
	b, _, err := configdoc.EncodeValues(valuesPlan(t))
	require.NoError(t, err)
	assert.Equal(t, a.Name, b.Name)
	other := valuesPlan(t)
	other.Releases[2].Values = map[string]any{"x": nil}
	other.Releases[2].ValuesDigest, err = domain.Digest(other.Releases[2].Values)
	require.NoError(t, err)
	c, _, err := configdoc.EncodeValues(other)
	require.NoError(t, err)
	assert.NotEqual(t, a.Name, c.Name)
}

// TestValues_PLAN3_Refusals: values that cannot be stored under their release ID, or whose
// recorded digest is stale, are not encoded.
func TestValues_PLAN3_Refusals(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(p *domain.Plan){
		"release ID with a slash":  func(p *domain.Plan) { p.Releases[0].ID = "a/b" },
		"release ID too long":      func(p *domain.Plan) { p.Releases[0].ID = strings.Repeat("a", 254) },
		"repeated release ID":      func(p *domain.Plan) { p.Releases[1].ID = p.Releases[0].ID },
		"stale valuesDigest":       func(p *domain.Plan) { p.Releases[0].Values = map[string]any{} },
		"valuesDigest not set yet": func(p *domain.Plan) { p.Releases[1].ValuesDigest = "" },
	} {
		p := valuesPlan(t)
		edit(p)
		_, _, err := configdoc.EncodeValues(p)
		require.ErrorIs(t, err, configdoc.ErrValuesNotStorable, name)
	}
}

// TestValues_PLAN6_MismatchesAreRefused: a missing key, altered bytes or a reference that
// disagrees with the release's valuesDigest are refused, never guessed.
func TestValues_PLAN6_MismatchesAreRefused(t *testing.T) {
	t.Parallel()
	p := valuesPlan(t)
	v, refs, err := configdoc.EncodeValues(p)
	require.NoError(t, err)
	ref, want := refs[0], p.Releases[0].ValuesDigest
	altered := map[string]string{ref.Key: strings.Replace(v.Data[ref.Key], "2", "3", 1)}
	for name, try := range map[string]func() error{
		"missing key":  func() error { _, err := configdoc.DecodeValues(ref, want, map[string]string{}); return err },
		"altered data": func() error { _, err := configdoc.DecodeValues(ref, want, altered); return err },
		"reference of other values": func() error {
			_, err := configdoc.DecodeValues(refs[1], want, v.Data)
			return err
		},
	} {
		require.ErrorIs(t, try(), configdoc.ErrValuesMismatch, name)
	}
}
