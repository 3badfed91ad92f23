package domain_test

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

const (
	partsPlan   = "sha256:0a"
	recipeSum   = "sha256:1b"
	valuesName  = "aicr-values-0123456789abcdef"
	recipeName  = "aicr-recipe-0123456789abcdef"
	bundleShown = "bundle registry.example/bundles/cluster@sha256:2c"
)

func partValues(state domain.PartState, rebuilt string) domain.PlanPart {
	return domain.PlanPart{Kind: domain.PartValues, Name: valuesName, State: state, Recorded: partsPlan, Rebuilt: rebuilt,
		Source: bundleShown}
}

func partRecipe(state domain.PartState, rebuilt, source string) domain.PlanPart {
	return domain.PlanPart{Kind: domain.PartValidationRecipe, Name: recipeName, State: state, Recorded: recipeSum,
		Rebuilt: rebuilt, Source: source}
}

// TestDecidePlanParts: lost parts are rebuilt only when every one is proven against the digest
// the plan records; otherwise nothing is written and the plan is resolved again; a part that
// holds other content is never used nor replaced.
func TestDecidePlanParts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		parts   []domain.PlanPart
		want    domain.PartsAction
		rebuild int
		message string
	}{
		{"nothing lost", []domain.PlanPart{partValues(domain.PartIntact, ""), partRecipe(domain.PartIntact, "", "")},
			domain.PartsIntact, 0, ""},
		{"a plan of schema 1 has no parts", nil, domain.PartsIntact, 0, ""},
		{"lost values proven by the bundle", []domain.PlanPart{partValues(domain.PartLost, partsPlan), partRecipe(domain.PartIntact, "", "")},
			domain.PartsRebuild, 1, "plan sha256:0a: rebuilt its lost values ConfigMap " + valuesName + " from " + bundleShown +
				", checked against the digests the plan records"},
		{"lost values and recipe both proven", []domain.PlanPart{partValues(domain.PartLost, partsPlan),
			partRecipe(domain.PartLost, recipeSum, "the recipe stage's result")}, domain.PartsRebuild, 2, "validation recipe ConfigMap " +
			recipeName + " from the recipe stage's result"},
		{"lost values whose rebuild has another digest", []domain.PlanPart{partValues(domain.PartLost, "sha256:ff")},
			domain.PartsResolveAgain, 0, "plan sha256:0a: its lost values ConfigMap " + valuesName + " (" + bundleShown +
				") cannot be rebuilt from a source the operator can prove: resolving it again"},
		{"lost recipe without a source", []domain.PlanPart{partRecipe(domain.PartLost, "", "the plan records no bundle")},
			domain.PartsResolveAgain, 0, "validation recipe ConfigMap " + recipeName + " (the plan records no bundle)"},
		{"one unproven part: nothing is rebuilt", []domain.PlanPart{partValues(domain.PartLost, partsPlan),
			partRecipe(domain.PartLost, "", "the plan records no bundle")}, domain.PartsResolveAgain, 0, "resolving it again"},
		{"a forged part is refused before a lost one is rebuilt", []domain.PlanPart{partValues(domain.PartLost, partsPlan),
			partRecipe(domain.PartForeign, "", "")}, domain.PartsRefused, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := domain.DecidePlanParts(partsPlan, tt.parts)
			assert.Equal(t, tt.want, d.Action)
			assert.Len(t, d.Rebuild, tt.rebuild)
			assert.Contains(t, d.Message, tt.message)
			if tt.want != domain.PartsRefused {
				assert.Nil(t, d.Stall)
				return
			}
			require.NotNil(t, d.Stall)
			assert.Equal(t, domain.StallConflict, d.Stall.Reason())
			assert.Equal(t, "validation recipe ConfigMap "+recipeName+" of plan sha256:0a holds other content than the plan records: "+
				"the operator neither uses nor replaces it; delete it and the operator rebuilds it", d.Stall.Message())
		})
	}
}

// TestStillLost: a plan resolved again whose recorded parts are still lost stalls with the
// reason its readers would stall with, naming the way out.
func TestStillLost(t *testing.T) {
	t.Parallel()
	assert.Nil(t, domain.StillLost(partsPlan, "aicr-plan-0a", []domain.PlanPart{partValues(domain.PartIntact, "")}))
	s := domain.StillLost(partsPlan, "aicr-plan-0a", []domain.PlanPart{partValues(domain.PartIntact, ""), partRecipe(domain.PartLost, "", "")})
	require.NotNil(t, s)
	assert.Equal(t, domain.StallPlanWithoutRecipe, s.Reason())
	assert.Equal(t, "plan sha256:0a was resolved again and its validation recipe ConfigMap "+recipeName+" is still not found: "+
		"delete its plan ConfigMap aicr-plan-0a and the operator resolves it anew", s.Message())
	s = domain.StillLost(partsPlan, "aicr-plan-0a", []domain.PlanPart{partValues(domain.PartLost, "")})
	require.NotNil(t, s)
	assert.Equal(t, domain.StallPlanUnreadable, s.Reason())
}

// TestRestoreValues: values found for a plan's releases are taken only when each has the
// valuesDigest the plan records and the plan with them has its digest.
func TestRestoreValues(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	stripped := make([]domain.Release, len(p.Releases))
	found := map[string]map[string]any{}
	for i, r := range p.Releases {
		found[r.ID] = r.Values
		r.Values = nil
		stripped[i] = r
	}
	got, why := domain.RestoreValues(p.Digest, stripped, found)
	require.Empty(t, why)
	assert.Equal(t, p.Releases, got)
	assert.Nil(t, stripped[0].Values, "the recorded releases are not changed")

	missing := maps.Clone(found)
	delete(missing, "gpu-operator")
	got, why = domain.RestoreValues(p.Digest, stripped, missing)
	assert.Nil(t, got)
	assert.Equal(t, "it has no release gpu-operator", why)

	forged := maps.Clone(found)
	forged["cert-manager"] = map[string]any{"replicaCount": float64(3)}
	got, why = domain.RestoreValues(p.Digest, stripped, forged)
	assert.Nil(t, got)
	assert.Contains(t, why, "the values of release cert-manager have digest ")

	got, why = domain.RestoreValues("sha256:other", stripped, found)
	assert.Nil(t, got)
	assert.Equal(t, "the plan with them has digest "+p.Digest+", not sha256:other", why)
}
