package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestPlanTransition_MarksDisruptiveSteps: which steps may disrupt the accelerated nodes is
// decided from the plans, the upgrade record and the change policy's lists, never by hand.
func TestPlanTransition_MarksDisruptiveSteps(t *testing.T) {
	t.Parallel()
	gpuNodes := map[string]string{"nodeGroup": "gpu"}
	build := func(edit func(b *ports.Bundle)) *domain.Plan {
		b := smallBundle()
		if edit != nil {
			edit(&b)
		}
		p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: b})
		require.NoError(t, err)
		return p
	}
	placed := build(func(b *ports.Bundle) {
		b.Releases[0].Values["webhook"] = map[string]any{"nodeSelector": map[string]any{"nodeGroup": "gpu", "zone": "a"}}
	})
	newerCM := build(func(b *ports.Bundle) { b.Releases[0].Chart.Version = "v1.18.0" })
	onlyCM := build(func(b *ports.Bundle) { b.Releases = b.Releases[:1] })
	agents := "gpu-operator runs node-level agents on the accelerated nodes (GPU driver, container toolkit and device plugin)"
	tests := []struct {
		name  string
		in    domain.TransitionInput
		wants map[string]string
	}{
		{name: "an install of node-level agents disrupts; a system component does not",
			in:    domain.TransitionInput{Target: build(nil), Disruption: domain.DisruptionRules{AcceleratedSelector: gpuNodes}},
			wants: map[string]string{"cert-manager": "", "gpu-operator": agents}},
		{name: "values that select the accelerated nodes place a release there",
			in: domain.TransitionInput{Target: placed, Disruption: domain.DisruptionRules{AcceleratedSelector: gpuNodes}},
			wants: map[string]string{
				"cert-manager": "its values place it on the accelerated node group (webhook.nodeSelector)", "gpu-operator": agents}},
		{name: "a values map short of one selector entry does not",
			in:    domain.TransitionInput{Target: placed, Disruption: domain.DisruptionRules{AcceleratedSelector: map[string]string{"nodeGroup": "gpu", "pool": "h100"}}},
			wants: map[string]string{"cert-manager": "", "gpu-operator": agents}},
		{name: "a Verify changes nothing and disrupts nothing",
			in:    domain.TransitionInput{Active: build(nil), Target: build(nil)},
			wants: map[string]string{"cert-manager": "", "gpu-operator": ""}},
		{name: "the policy exempts a component and names another",
			in: domain.TransitionInput{Target: build(nil), Disruption: domain.DisruptionRules{
				Exempt: []string{"gpu-operator"}, Disruptive: []string{"cert-manager"}}},
			wants: map[string]string{"cert-manager": "the change policy names cert-manager disruptive", "gpu-operator": ""}},
		{name: "a Remove of node-level agents disrupts",
			in:    domain.TransitionInput{Active: build(nil), Target: onlyCM},
			wants: map[string]string{"cert-manager": "", "gpu-operator": agents}},
		{name: "an upgrade AICR's record asks manual steps for disrupts",
			in: domain.TransitionInput{Active: build(nil), Target: newerCM, Assessments: []ports.ComponentAssessment{
				{Component: "cert-manager", Verdict: ports.VerdictManual}}},
			wants: map[string]string{"cert-manager": "AICR's upgrade record for cert-manager asks for manual steps", "gpu-operator": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := domain.PlanTransition(tt.in)
			require.NoError(t, err)
			got := map[string]string{}
			for _, s := range tr.Steps {
				got[s.Release.ID] = s.Disruption
			}
			assert.Equal(t, tt.wants, got)
		})
	}
}

func TestReinstallTransition_MarksDisruptiveSteps(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	tr, err := domain.ReinstallTransition(p, []ports.ReleaseRef{ref("gpu-operator")},
		domain.DisruptionRules{Disruptive: []string{"gpu-operator"}})
	require.NoError(t, err)
	require.Len(t, tr.Steps, 1)
	assert.Equal(t, "the change policy names gpu-operator disruptive", tr.Steps[0].Disruption)
}
