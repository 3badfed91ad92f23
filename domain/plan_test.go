package domain_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

const fixtures = "../test/testdata/aicr"

func loadPlan(t *testing.T, dir string) *domain.Plan {
	t.Helper()
	b, err := aicr.ReadDir(filepath.Join(fixtures, dir, "bundle-helm"))
	require.NoError(t, err)
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "uid-1", Bundle: b})
	require.NoError(t, err)
	return p
}

func TestBuildPlan_RefusesLegacyBundles(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{
		"eks-h100-ubuntu-training-kubeflow", "gke-h100-cos-training-kubeflow",
		"eks-h100-ubuntu-inference-dynamo", "upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow",
		"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow",
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			b, err := aicr.ReadDir(filepath.Join(fixtures, dir, "bundle-helm"))
			require.NoError(t, err)
			_, err = domain.BuildPlan(domain.PlanInput{RuntimeUID: "uid-1", Bundle: b})
			var se *domain.StallError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, domain.StallAICRArtifactUnsupported, se.Stall.Reason())
		})
	}
}

func TestBuildPlan_RefusesV1LayoutFromUnsupportedVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0.11.1", "2.0.0", "1.0.0-rc.1", "0.0.0-dev", "", "1.2"} {
		b := ports.Bundle{Layout: ports.LayoutV1, AICRVersion: v, Releases: []ports.BundleRelease{release("a")}}
		_, err := domain.BuildPlan(domain.PlanInput{Bundle: b})
		var se *domain.StallError
		require.ErrorAs(t, err, &se, v)
		assert.Equal(t, domain.StallAICRArtifactUnsupported, se.Stall.Reason(), v)
	}
	for _, v := range []string{"1.0.0", "v1.1.0", "1.99.3", "1.2.0-rc.1"} {
		b := ports.Bundle{Layout: ports.LayoutV1, AICRVersion: v, Releases: []ports.BundleRelease{release("a")}}
		_, err := domain.BuildPlan(domain.PlanInput{Bundle: b})
		assert.NoError(t, err, v)
	}
}

func TestBuildPlan_GraphErrors(t *testing.T) {
	t.Parallel()
	a, b := release("a"), release("b")
	a.DependsOnComponents = []string{"missing"}
	_, err := domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(a, b)})
	require.ErrorIs(t, err, domain.ErrUnknownDependency)

	a.DependsOnComponents, b.DependsOnComponents = []string{"b"}, []string{"a"}
	_, err = domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(a, b)})
	require.ErrorIs(t, err, domain.ErrDependencyCycle)
	assert.False(t, errors.Is(err, domain.ErrUnknownDependency))
}

type goldenDiff struct {
	Steps []struct {
		Action  string `json:"action"`
		Release string `json:"release"`
	} `json:"steps"`
}

func TestPlanTransition_MatchesGoldenDiffs(t *testing.T) {
	t.Parallel()
	cases := map[string][2]string{
		"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic": {
			"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
			"v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow",
		},
		"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic": {
			"v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow",
			"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
		},
	}
	for golden, fromTo := range cases {
		t.Run(golden, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(fixtures, golden, "expected-plan-diff.json"))
			require.NoError(t, err)
			var want goldenDiff
			require.NoError(t, json.Unmarshal(data, &want))
			tr, err := domain.PlanTransition(domain.TransitionInput{
				Active: loadPlan(t, fromTo[0]), Target: loadPlan(t, fromTo[1]),
			})
			require.NoError(t, err)
			require.Len(t, tr.Steps, len(want.Steps))
			for i, w := range want.Steps {
				action := w.Action
				if action == "NoOp" {
					action = string(domain.OpVerify)
				}
				assert.Equal(t, w.Release, tr.Steps[i].Release.String(), "step %d", i+1)
				assert.Equal(t, action, string(tr.Steps[i].Operation), "step %d %s", i+1, w.Release)
			}
			assert.True(t, tr.ApprovalRequired, "a Remove step needs approval")
		})
	}
}

func TestPlanTransition_InitialInstall(t *testing.T) {
	t.Parallel()
	target := loadPlan(t, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow")
	tr, err := domain.PlanTransition(domain.TransitionInput{Target: target})
	require.NoError(t, err)
	require.Len(t, tr.Steps, len(target.Releases))
	for i, s := range tr.Steps {
		assert.Equal(t, domain.OpInstall, s.Operation)
		assert.Equal(t, target.Releases[i].Ref(), s.Release, "installs follow the bundle order")
	}
	assert.False(t, tr.ApprovalRequired, "an initial install of Install steps needs no approval")
	assert.Nil(t, tr.Blocked)
}

func TestPlanTransition_Assessments(t *testing.T) {
	t.Parallel()
	from := loadPlan(t, "upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic")
	to := loadPlan(t, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow")
	tr, err := domain.PlanTransition(domain.TransitionInput{Active: from, Target: to,
		Assessments: []ports.ComponentAssessment{
			{Component: "kai-scheduler", Verdict: ports.VerdictBlocked, Reason: "record-blocks"},
			{Component: "nvsentinel", Verdict: ports.VerdictManual, RecordedSteps: true, ChangesCRDs: true},
		}})
	require.NoError(t, err)
	require.NotNil(t, tr.Blocked)
	assert.Equal(t, domain.StallTransitionBlocked, tr.Blocked.Reason())
	last := tr.Steps[len(tr.Steps)-1]
	assert.Equal(t, "nvsentinel", last.Release.ID)
	assert.Equal(t, ports.VerdictManual, last.Assessment)
	assert.True(t, last.ChangesCRDs)
	assert.True(t, last.AcknowledgeBeforeApply)
}

func release(name string) ports.BundleRelease {
	return ports.BundleRelease{
		Name: name, Component: name, Namespace: "ns", Kind: ports.KindUpstream,
		Chart:  ports.ChartSource{Repository: "https://charts.example", Name: name, Version: "1.0.0"},
		Values: map[string]any{"replicas": float64(2)},
	}
}

func v1Bundle(rels ...ports.BundleRelease) ports.Bundle {
	return ports.Bundle{Layout: ports.LayoutV1, AICRVersion: "1.1.0", Releases: rels}
}

// TestReinstallAfterRestore: only releases a restored rollout recorded as Unknown and that
// have no engine object are reinstalled, in dependency order, with a fresh approval (RO-13).
func TestReinstallAfterRestore(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	certManager, gpuOperator := p.Releases[0].Ref(), p.Releases[1].Ref()
	unknown := map[string]bool{certManager.ID: true, gpuOperator.ID: true}

	assert.Empty(t, domain.MissingAfterRestore(p, nil, nil), "no restored rollout: nothing to reinstall")
	assert.Empty(t, domain.MissingAfterRestore(p, unknown, []ports.ReleaseStatus{{Ref: certManager}, {Ref: gpuOperator}}))
	missing := domain.MissingAfterRestore(p, unknown, []ports.ReleaseStatus{{Ref: certManager}})
	assert.Equal(t, []ports.ReleaseRef{gpuOperator}, missing)
	assert.Equal(t, []ports.ReleaseRef{gpuOperator}, domain.MissingAfterRestore(p, map[string]bool{gpuOperator.ID: true}, nil),
		"a release the restored rollout did not record is not touched")

	tr, err := domain.ReinstallTransition(p, []ports.ReleaseRef{gpuOperator, certManager}, domain.DisruptionRules{})
	require.NoError(t, err)
	assert.True(t, tr.ApprovalRequired)
	require.Len(t, tr.Steps, 2)
	assert.Equal(t, []ports.ReleaseRef{certManager, gpuOperator}, []ports.ReleaseRef{tr.Steps[0].Release, tr.Steps[1].Release},
		"dependency order: gpu-operator depends on cert-manager")
	for _, s := range tr.Steps {
		assert.Equal(t, domain.OpInstall, s.Operation)
	}

	assert.Nil(t, domain.MovedReleasesMissing(p.Digest, nil), "nothing missing: no stall")
	s := domain.MovedReleasesMissing(p.Digest, []ports.ReleaseRef{gpuOperator})
	require.NotNil(t, s)
	assert.Equal(t, domain.StallMovedReleaseMissing, s.Reason())
	assert.Contains(t, s.Message(), "releases "+gpuOperator.String()+" of the active plan "+p.Digest+" were lost with a restore")
}
