package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// TestCheckPlanReadable_PLAN1_PLAN6_Schemas: plans of schema 1 (values inline) and schema 2
// (values in their own ConfigMap) are read; a label that differs from the payload, or a
// schema this operator does not know, stalls PlanUnreadable.
func TestCheckPlanReadable_PLAN1_PLAN6_Schemas(t *testing.T) {
	t.Parallel()
	const d = "sha256:aa"
	for _, tc := range []struct {
		label    string
		payload  int
		readable bool
	}{
		{"1", 1, true}, {"2", 2, true}, {"2", 1, false}, {"1", 2, false}, {"3", 3, false}, {"0", 0, false}, {"", 0, false},
	} {
		s := domain.CheckPlanReadable(domain.StoredPlan{
			DigestAnnotation: d, SchemaLabel: tc.label, PayloadSchema: tc.payload, PayloadDigest: d, RuntimeUID: "uid",
		}, "uid")
		if tc.readable {
			assert.Nil(t, s, "label %q payload %d", tc.label, tc.payload)
			continue
		}
		require.NotNil(t, s, "label %q payload %d", tc.label, tc.payload)
		assert.Equal(t, domain.StallPlanUnreadable, s.Reason())
		assert.Contains(t, s.Message(), "this operator reads 1 to 2")
	}
}

// TestBuildPlan_PLAN4_DigestStableAcrossDocumentSchemas: a schema 2 plan has the digest the
// golden records for schema 1 plans, so the same inputs keep their plan when the operator
// is upgraded.
func TestBuildPlan_PLAN4_DigestStableAcrossDocumentSchemas(t *testing.T) {
	t.Parallel()
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "a", Bundle: smallBundle()})
	require.NoError(t, err)
	assert.Equal(t, 2, p.SchemaVersion)
	assert.Equal(t, goldenSmallDigest, p.Digest)
}
