package domain_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// engineSpecs is what the engine objects of p record after a rollout applied every release
// (as the rollout step does), read back as an engine would: values through JSON, listed in
// engine order (by namespace and ID), not in plan order.
func engineSpecs(t *testing.T, p *domain.Plan) []ports.ReleaseSpec {
	t.Helper()
	owner := ports.ReleaseOwner{RuntimeUID: p.RuntimeUID, PlanDigest: p.Digest, Rollout: rolloutName}
	out := make([]ports.ReleaseSpec, 0, len(p.Releases))
	for _, r := range p.Releases {
		s := p.ReleaseSpec(r.Ref(), owner)
		raw, err := json.Marshal(s.Values)
		require.NoError(t, err)
		s.Values = nil
		require.NoError(t, json.Unmarshal(raw, &s.Values))
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ports.ReleaseSpec) int {
		if a.Ref.String() < b.Ref.String() {
			return -1
		}
		return 1
	})
	return out
}

// TestRebuildPlan_Exact: a plan rebuilt from the engine objects of its releases has the plan's
// digest and releases, with source rebuilt and no recipe (PLAN-7).
func TestRebuildPlan_Exact(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*domain.Plan{
		"small":   targetPlan(t),
		"local":   localPlan(t),
		"fixture": loadPlan(t, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			other := ports.ReleaseSpec{Ref: ports.ReleaseRef{ID: "x", Namespace: "y"}, Position: 0,
				Owner: ports.ReleaseOwner{RuntimeUID: "other-runtime", PlanDigest: p.Digest}}
			rebuilt, stall := domain.RebuildPlan(p.RuntimeUID, p.Digest, append(engineSpecs(t, p), other))
			require.Nil(t, stall)
			assert.Equal(t, p.Digest, rebuilt.Digest)
			assert.Equal(t, domain.SourceRebuilt, rebuilt.Source)
			assert.False(t, rebuilt.HasRecipe)
			assert.Equal(t, p.RuntimeUID, rebuilt.RuntimeUID)
			require.Len(t, rebuilt.Releases, len(p.Releases))
			for i, r := range p.Releases {
				got := rebuilt.Releases[i]
				assert.Equal(t, r.ValuesDigest, got.ValuesDigest, "%s values", r.ID)
				r.Values, got.Values = nil, nil
				if len(r.DependsOn) == 0 {
					r.DependsOn = nil
				}
				assert.Equal(t, r, got, "release %d", i)
			}
		})
	}
}

// TestRebuildPlan_Refused: anything but the exact engine objects of the plan stalls
// PlanUnreadable; the operator never guesses (PLAN-6, PLAN-7).
func TestRebuildPlan_Refused(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	require.GreaterOrEqual(t, len(p.Releases), 2)
	cases := map[string]struct {
		change func([]ports.ReleaseSpec) []ports.ReleaseSpec
		want   string
	}{
		"no engine objects": {
			change: func([]ports.ReleaseSpec) []ports.ReleaseSpec { return nil },
			want:   "no engine object of runtime",
		},
		"missing release": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec { return s[1:] },
			want:   "records position",
		},
		"missing last release": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				return slices.DeleteFunc(s, func(x ports.ReleaseSpec) bool { return x.Position == len(p.Releases)-1 })
			},
			want: "an engine object changed or a release is missing",
		},
		"tampered value": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[0].Values = map[string]any{"tampered": true}
				return s
			},
			want: "an engine object changed",
		},
		"tampered policy": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[0].Policy.ServerSideApply = !s[0].Policy.ServerSideApply
				return s
			},
			want: "an engine object changed",
		},
		"object of another runtime": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[0].Owner.RuntimeUID = "another-runtime"
				return s
			},
			want: "records position",
		},
		"object of another plan": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[len(s)-1].Owner.PlanDigest = "sha256:another"
				return s
			},
			want: "a release is missing",
		},
		"older apply without position": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[0].Position, s[0].Component, s[0].Kind, s[0].Chart.Name = -1, "", "", ""
				return s
			},
			want: "record no plan position",
		},
		"duplicate position": {
			change: func(s []ports.ReleaseSpec) []ports.ReleaseSpec {
				s[1].Position = s[0].Position
				return s
			},
			want: "both record position",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rebuilt, stall := domain.RebuildPlan(p.RuntimeUID, p.Digest, c.change(engineSpecs(t, p)))
			assert.Nil(t, rebuilt)
			require.NotNil(t, stall)
			assert.Equal(t, domain.StallPlanUnreadable, stall.Reason())
			assert.Contains(t, stall.Message(), c.want)
			assert.Contains(t, stall.Message(), "the operator never guesses")
			assert.Contains(t, stall.Message(), p.Digest)
		})
	}
}

// TestRebuiltPlanNeverReplacesResolved: a rebuilt plan is replaced by the resolved plan of
// its digest, never the reverse (PLAN-5, PLAN-7).
func TestRebuiltPlanNeverReplacesResolved(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	rebuilt, stall := domain.RebuildPlan(p.RuntimeUID, p.Digest, engineSpecs(t, p))
	require.Nil(t, stall)
	resolved := domain.StoredPlan{DigestAnnotation: p.Digest, RuntimeUID: p.RuntimeUID, Source: domain.SourceResolved}
	w, s := domain.DecidePlanWrite(resolved, rebuilt)
	require.Nil(t, s)
	assert.Equal(t, domain.PlanWriteKeep, w)
	stored := domain.StoredPlan{DigestAnnotation: p.Digest, RuntimeUID: p.RuntimeUID, Source: domain.SourceRebuilt}
	w, s = domain.DecidePlanWrite(stored, p)
	require.Nil(t, s)
	assert.Equal(t, domain.PlanWriteReplace, w)
}

// TestRebuiltPlanWithoutRecipe: a rebuilt plan has no recipe, so it is not rolled out while
// deployment validation is Required: the rollout stalls PlanWithoutRecipe before the engine is
// asked anything (PLAN-5, PLAN-7, RO-10).
func TestRebuiltPlanWithoutRecipe(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	rebuilt, stall := domain.RebuildPlan(uid, targetPlan(t).Digest, engineSpecs(t, targetPlan(t)))
	require.Nil(t, stall)
	got := advanceStall(spec(t), domain.RolloutStatus{}, func(e *domain.Environment) {
		e.Target, e.ValidationRequired, e.ValidationRecipe = rebuilt, true, nil
	}, nil)(t, p, r)
	require.NotNil(t, got)
	assert.Equal(t, domain.StallPlanWithoutRecipe, got.Reason())
	assert.Contains(t, got.Message(), rebuilt.Digest)
}
