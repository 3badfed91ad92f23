package configdoc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

const digest = "sha256:3f9a1c0d2b7e4a51aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func TestPlan_RoundTripKeepsEveryPLAN2Field(t *testing.T) {
	t.Parallel()
	ref := configdoc.ValuesRef{Name: "aicr-values-3f9a1c0d2b7e4a51", Key: "gpu-operator", Digest: digest}
	in := &configdoc.Plan{
		Plan: domain.Plan{
			SchemaVersion: domain.PlanSchemaVersion, Digest: digest, RuntimeUID: "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f",
			Source: domain.SourceResolved, AICRVersion: "v1.0.0", HasRecipe: true,
			Releases: []domain.Release{{ID: "gpu-operator", Namespace: "gpu-operator", DependsOn: []string{"cert-manager"}, ValuesDigest: digest}},
		},
		AICRImage: "ghcr.io/nvidia/aicr@sha256:11", RenderFlags: []string{"--deployer", "helm"},
		BundleRef:              "registry.example.com/aicr/bundles@sha256:22",
		ConfigMapRef:           &configdoc.ConfigMapRef{Name: "aicr-recipe-3f9a1c0d2b7e4a51", Digest: digest},
		ValidationConfigMapRef: &configdoc.ConfigMapRef{Name: "aicr-recipe-3f9a1c0d2b7e4a52", Digest: digest},
		ValuesRefs:             []configdoc.ValuesRef{ref},
	}
	raw, err := configdoc.EncodePlan(in)
	require.NoError(t, err)
	for _, key := range []string{`"schemaVersion":2`, `"desiredStateDigest":"` + digest, `"runtimeUID":`, `"source":"resolved"`,
		`"releases":`, `"aicrImage":`, `"renderFlags":["--deployer","helm"]`, `"bundleRef":`, `"configMapRef":{"name":`,
		`"validationConfigMapRef":`, `"valuesDigest":"` + digest,
		`"valuesRef":{"name":"aicr-values-3f9a1c0d2b7e4a51","key":"gpu-operator","digest":"` + digest} {
		assert.Contains(t, string(raw), key)
	}
	assert.NotContains(t, string(raw), `"values":`, "values live in the values ConfigMap (PLAN-3)")
	out, err := configdoc.DecodePlan(raw)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

// TestPlan_PLAN1_WritesOnlyTheCurrentSchema: a plan of another schema, or without a values
// reference per release, is not written.
func TestPlan_PLAN1_WritesOnlyTheCurrentSchema(t *testing.T) {
	t.Parallel()
	rel := []domain.Release{{ID: "a"}}
	for _, p := range []*configdoc.Plan{
		{Plan: domain.Plan{SchemaVersion: 1, Releases: rel}, ValuesRefs: []configdoc.ValuesRef{{}}},
		{Plan: domain.Plan{SchemaVersion: domain.PlanSchemaVersion, Releases: rel}},
	} {
		_, err := configdoc.EncodePlan(p)
		require.ErrorIs(t, err, configdoc.ErrPlanLayout)
	}
}

// TestPlan_PLAN1_ReadsSchema1WithInlineValues: a plan written by an operator of schema 1
// keeps its inline values, explicit nulls included, and has no values references.
func TestPlan_PLAN1_ReadsSchema1WithInlineValues(t *testing.T) {
	t.Parallel()
	raw := `{"schemaVersion":1,"desiredStateDigest":"` + digest + `","runtimeUID":"u","source":"resolved","aicrVersion":"1.0.0",` +
		`"hasRecipe":true,"releases":[{"id":"a","namespace":"n","component":"a","kind":"upstream","chart":{"repository":"oci://r",` +
		`"name":"a","version":"1"},"values":{"gone":null,"n":2,"s":"x"},"valuesDigest":"sha256:1","policy":{"serverSideApply":true}},` +
		`{"id":"b","namespace":"n","component":"b","kind":"upstream","chart":{"repository":"oci://r","name":"b","version":"1"},` +
		`"values":null,"policy":{}}],"renderFlags":[]}`
	p, err := configdoc.DecodePlan([]byte(raw))
	require.NoError(t, err)
	assert.Nil(t, p.ValuesRefs)
	require.Len(t, p.Releases, 2)
	assert.Equal(t, map[string]any{"gone": nil, "n": float64(2), "s": "x"}, p.Releases[0].Values)
	assert.Contains(t, p.Releases[0].Values, "gone", "an explicit null survives")
	assert.Nil(t, p.Releases[1].Values)
	assert.Equal(t, "sha256:1", p.Releases[0].ValuesDigest)
}

// TestPlan_PLAN6_ReleasesInTheLayoutOfAnotherSchemaAreRefused: a schema 1 plan with a values
// reference, or a schema 2 plan with inline values or without a reference, is not guessed.
func TestPlan_PLAN6_ReleasesInTheLayoutOfAnotherSchemaAreRefused(t *testing.T) {
	t.Parallel()
	ref := `"valuesRef":{"name":"aicr-values-3f9a1c0d2b7e4a51","key":"a","digest":"` + digest + `"}`
	for _, doc := range []string{
		`{"schemaVersion":1,"releases":[{"id":"a",` + ref + `}]}`,
		`{"schemaVersion":2,"releases":[{"id":"a","values":{}}]}`,
		`{"schemaVersion":2,"releases":[{"id":"a","values":null,` + ref + `}]}`,
		`{"schemaVersion":2,"releases":[{"id":"a"}]}`,
	} {
		_, err := configdoc.DecodePlan([]byte(doc))
		require.ErrorIs(t, err, configdoc.ErrPlanLayout, doc)
	}
}

func TestPlan_RenderFlagsNotRecordedDiffersFromNoFlags(t *testing.T) {
	t.Parallel()
	absent, err := configdoc.DecodePlan([]byte(`{"schemaVersion":1,"desiredStateDigest":"` + digest + `"}`))
	require.NoError(t, err)
	assert.Nil(t, absent.RenderFlags, "a plan that does not record its render flags")
	empty, err := configdoc.DecodePlan([]byte(`{"schemaVersion":1,"renderFlags":[]}`))
	require.NoError(t, err)
	assert.NotNil(t, empty.RenderFlags, "a plan rendered without flags")
}

func TestPlan_UnknownFieldsAreRefused(t *testing.T) {
	t.Parallel()
	_, err := configdoc.DecodePlan([]byte(`{"schemaVersion":3,"renderFlagz":[]}`))
	require.ErrorContains(t, err, "renderFlagz")
}

func TestNames(t *testing.T) {
	t.Parallel()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	assert.Equal(t, "aicr-plan-3f9a1c0d2b7e4a51", name)
	assert.True(t, configdoc.IsPlanConfigMapName(name))
	name, err = configdoc.AssessmentConfigMapName("", digest, digest)
	require.NoError(t, err)
	assert.Regexp(t, "^aicr-assessment-[0-9a-f]{16}$", name)
	other, err := configdoc.AssessmentConfigMapName(digest, digest, digest)
	require.NoError(t, err)
	assert.NotEqual(t, name, other, "one report of two transitions has two names")
	_, err = configdoc.AssessmentConfigMapName("", digest, "sha256:3f9a")
	require.ErrorIs(t, err, configdoc.ErrNotDigest)

	for _, bad := range []string{"", "sha256:3f9a", "sha256:" + digest[7:39] + "ZZ" + digest[41:], "md5:" + digest[7:]} {
		_, err := configdoc.PlanConfigMapName(bad)
		require.ErrorIs(t, err, configdoc.ErrNotDigest, bad)
	}
	for _, bad := range []string{"aicr-plan-3f9a", "aicr-plan-3F9A1C0D2B7E4A51", "plan-3f9a1c0d2b7e4a51", "aicr-plan-3f9a1c0d2b7e4a51x"} {
		assert.False(t, configdoc.IsPlanConfigMapName(bad), bad)
	}
}
