package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// overrideChange describes one release "gpu-operator" (plus "cert-manager", unchanged) going
// from the active to the target plan under the given render flags and verdict.
type overrideChange struct {
	name          string
	values        bool // the target's gpu-operator values differ
	version       bool // the target's gpu-operator chart version differs
	active        []string
	target        []string
	verdict       ports.UpgradeVerdict
	wantReason    string // "" = no values change needing an approver
	wantApproval  bool
	wantOperation domain.Operation
}

func setJSON(v string) []string { return []string{"--set-json", v} }

func overrideChanges() []overrideChange {
	none := []string{}
	repo := setJSON(`gpu-operator:driver.repository="nvcr.io/nvidia"`)
	evil := setJSON(`gpu-operator:driver.repository="registry.evil.example"`)
	return []overrideChange{
		{name: "a safe version change AICR renders: covered", values: true, version: true, active: none, target: none,
			verdict: ports.VerdictSafe, wantOperation: domain.OpUpgrade},
		{name: "a safe version change with an override of the release changed", values: true, version: true,
			active: repo, target: evil, verdict: ports.VerdictSafe, wantApproval: true, wantOperation: domain.OpUpgrade,
			wantReason: "values changed by overrides: gpu-operator:driver.repository"},
		{name: "an override added through AICR's alias of the component", values: true, version: true, active: none,
			target: setJSON(`gpuoperator:securityContext.privileged=true`), verdict: ports.VerdictSafe, wantApproval: true,
			wantOperation: domain.OpUpgrade, wantReason: "values changed by overrides: gpuoperator:securityContext.privileged"},
		{name: "an override of a component of neither plan may be an alias of any", values: true, version: true,
			active: none, target: setJSON(`gpuop:image="x"`), verdict: ports.VerdictSafe, wantApproval: true,
			wantOperation: domain.OpUpgrade, wantReason: "values changed by overrides: gpuop:image"},
		{name: "an override removed", values: true, version: true, active: repo, target: none, verdict: ports.VerdictSafe,
			wantApproval: true, wantOperation: domain.OpUpgrade, wantReason: "values changed by overrides: gpu-operator:driver.repository"},
		{name: "a path holding = is named whole", values: true, version: true, active: none,
			target: setJSON(`gpu-operator:labels.a=b=1`), verdict: ports.VerdictSafe, wantApproval: true,
			wantOperation: domain.OpUpgrade, wantReason: "values changed by overrides: gpu-operator:labels.a=b"},
		{name: "an override of another known component: covered", values: true, version: true, active: none,
			target: setJSON(`cert-manager:replicas=3`), verdict: ports.VerdictSafe, wantOperation: domain.OpUpgrade},
		{name: "placement flags changed", values: true, version: true, active: none,
			target: []string{"--system-node-selector", "pool=system"}, verdict: ports.VerdictSafe, wantApproval: true,
			wantOperation: domain.OpUpgrade, wantReason: "values changed by placement flags: --system-node-selector"},
		{name: "values changed without a version change", values: true, active: repo, target: repo,
			verdict: ports.VerdictSafe, wantApproval: true, wantOperation: domain.OpUpgrade,
			wantReason: "values changed without a chart version change for AICR's verdict to cover"},
		{name: "a plan without recorded render flags", values: true, version: true, active: nil, target: repo,
			verdict: ports.VerdictSafe, wantApproval: true, wantOperation: domain.OpUpgrade,
			wantReason: "values changed and a plan records no render flags, so overrides may have changed them"},
		{name: "a manual verdict still names the override", values: true, version: true, active: repo, target: evil,
			verdict: ports.VerdictManual, wantApproval: true, wantOperation: domain.OpUpgrade,
			wantReason: "values changed by overrides: gpu-operator:driver.repository"},
		{name: "a safe version change with values unchanged", version: true, active: repo, target: evil,
			verdict: ports.VerdictSafe, wantOperation: domain.OpUpgrade},
		{name: "values unchanged: Verify", active: nil, target: evil, wantOperation: domain.OpVerify},
	}
}

// TestPlanTransition_ValuesChangeNeedsApproval: a safe upgrade-check verdict judges versions,
// not values: an Upgrade whose values changed by the runtime's overrides or placement, or in
// a way no version change explains, needs an approver and says why (RO-8).
func TestPlanTransition_ValuesChangeNeedsApproval(t *testing.T) {
	t.Parallel()
	for _, tt := range overrideChanges() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gpu, cm := release("gpu-operator"), release("cert-manager")
			active, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: v1Bundle(cm, gpu)})
			require.NoError(t, err)
			if tt.values {
				gpu.Values = map[string]any{"replicas": float64(2), "driver": map[string]any{"repository": "x"}}
			}
			if tt.version {
				gpu.Chart.Version = "1.1.0"
			}
			target, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: v1Bundle(cm, gpu)})
			require.NoError(t, err)
			var rows []ports.ComponentAssessment
			if tt.verdict != "" {
				rows = []ports.ComponentAssessment{{Component: "gpu-operator", Verdict: tt.verdict}}
			}
			tr, err := domain.PlanTransition(domain.TransitionInput{Active: active, Target: target, Assessments: rows,
				ActiveRenderFlags: tt.active, TargetRenderFlags: tt.target})
			require.NoError(t, err)
			require.Len(t, tr.Steps, 2)
			assert.Equal(t, domain.OpVerify, tr.Steps[0].Operation, "cert-manager is unchanged")
			assert.Empty(t, tr.Steps[0].ValuesChange)
			step := tr.Steps[1]
			assert.Equal(t, tt.wantOperation, step.Operation)
			assert.Equal(t, tt.wantReason, step.ValuesChange)
			assert.Equal(t, tt.wantApproval, tr.ApprovalRequired)
		})
	}
}

// TestPlanTransition_SetOverridesFixture: the fixture rendered with --set overrides and
// placement flags (README of upgrade-set-overrides) names, on gpu-operator, the alias override
// that changed its driver version and the placement flags.
func TestPlanTransition_SetOverridesFixture(t *testing.T) {
	t.Parallel()
	flags := []string{
		"--system-node-selector", "nodeGroup=system-pool", "--system-node-toleration", "dedicated=system:NoSchedule",
		"--accelerated-node-selector", "nodeGroup=gpu-pool", "--accelerated-node-toleration", "nvidia.com/gpu=present:NoSchedule",
		"--set-json", `gpuoperator:driver.version="580.95.05"`, "--set-json", "awsebscsidriver:enabled=false",
	}
	tr, err := domain.PlanTransition(domain.TransitionInput{
		Active:            loadPlan(t, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow"),
		Target:            loadPlan(t, "upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic"),
		ActiveRenderFlags: []string{}, TargetRenderFlags: flags,
		Assessments: []ports.ComponentAssessment{{Component: "gpu-operator", Verdict: ports.VerdictSafe}},
	})
	require.NoError(t, err)
	assert.True(t, tr.ApprovalRequired)
	for _, s := range tr.Steps {
		if s.Release.ID == "gpu-operator" {
			assert.Equal(t, "values changed by overrides: gpuoperator:driver.version; values changed by placement flags: "+
				"--accelerated-node-selector, --accelerated-node-toleration, --system-node-selector, --system-node-toleration",
				s.ValuesChange)
			return
		}
	}
	t.Fatal("no gpu-operator step")
}

// TestPlanTransition_InstallWithOverridesNeedsApproval: an Install step whose release the
// target plan's overrides may reach needs an approver, as an Upgrade whose overrides changed
// does: on a later transition always, on the initial install unless the runtime waives it.
// An override of another known component names that one's step only; a plan without recorded
// flags names nothing.
func TestPlanTransition_InstallWithOverridesNeedsApproval(t *testing.T) {
	t.Parallel()
	repo := setJSON(`gpu-operator:driver.repository="registry.example.com/nvidia"`)
	for _, tc := range []struct {
		name         string
		initial      bool
		waived       bool
		target       []string
		wantReason   string
		wantApproval bool
	}{
		{name: "initial install with an override of the release", initial: true, target: repo, wantApproval: true,
			wantReason: "installed with overrides: gpu-operator:driver.repository"},
		{name: "initial install with the override waived", initial: true, waived: true, target: repo},
		{name: "initial install with an override through an unknown alias", initial: true,
			target: setJSON(`gpuop:image="x"`), wantApproval: true, wantReason: "installed with overrides: gpuop:image"},
		{name: "an override of another release names that release only", initial: true,
			target: setJSON(`cert-manager:replicas=3`), wantApproval: true},
		{name: "initial install without overrides", initial: true, target: []string{}},
		{name: "initial install of a plan without recorded flags", initial: true},
		{name: "a release added later with an override", target: repo, wantApproval: true,
			wantReason: "installed with overrides: gpu-operator:driver.repository"},
		{name: "a release added later: the waiver is for the initial install only", waived: true, target: repo,
			wantApproval: true, wantReason: "installed with overrides: gpu-operator:driver.repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := domain.TransitionInput{TargetRenderFlags: tc.target, WaiveInitialInstallOverrides: tc.waived}
			target, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: v1Bundle(release("cert-manager"), release("gpu-operator"))})
			require.NoError(t, err)
			in.Target = target
			if !tc.initial {
				in.Active, err = domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: v1Bundle(release("cert-manager"))})
				require.NoError(t, err)
				in.ActiveRenderFlags = tc.target
			}
			tr, err := domain.PlanTransition(in)
			require.NoError(t, err)
			require.Len(t, tr.Steps, 2)
			step := tr.Steps[1]
			assert.Equal(t, domain.OpInstall, step.Operation)
			assert.Equal(t, tc.wantReason, step.ValuesChange)
			assert.Equal(t, tc.wantApproval, tr.ApprovalRequired)
		})
	}
}
