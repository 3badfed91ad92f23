package cli_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// describedPlan builds the plan of cert-manager (unchanged) and gpu-operator at chart version
// and driver repository.
func describedPlan(t *testing.T, version, repository string) *domain.Plan {
	t.Helper()
	rel := func(name, version string, values map[string]any) ports.BundleRelease {
		return ports.BundleRelease{Name: name, Component: name, Namespace: name, Kind: ports.KindUpstream,
			Chart: ports.ChartSource{Repository: "https://charts.example", Name: name, Version: version}, Values: values}
	}
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "uid-1", Bundle: ports.Bundle{
		Layout: ports.LayoutV1, AICRVersion: "1.1.0", Releases: []ports.BundleRelease{
			rel("cert-manager", "1.0.0", map[string]any{"replicas": float64(1)}),
			rel("gpu-operator", version, map[string]any{"driver": map[string]any{"repository": repository}}),
		}}})
	require.NoError(t, err)
	return p
}

// storedPlans are the ConfigMaps the operator stores for plans, each rendered with its flags,
// written through the plan store; tamper, when not nil, alters them once written.
func storedPlans(t *testing.T, tamper func(planstoretest.Store), plans ...planstoretest.Plan) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, cm := range planstoretest.Objects(t, cli.OperatorNamespace, plans, tamper) {
		out = append(out, cm)
	}
	return out
}

func upgradeRollout(from, to *domain.Plan) *aicrv1alpha1.RuntimeRollout {
	ro := pendingRollout()
	ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest = from.Digest, to.Digest
	ro.Spec.Steps = []aicrv1alpha1.Step{
		{Release: "cert-manager", Operation: aicrv1alpha1.OperationVerify},
		{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade, Assessment: "safe"},
	}
	return ro
}

// TestDescribe_ValuesChangeBesideTheAssessment: describe names, next to AICR's verdict, a
// values change the verdict does not cover: the overrides that changed an Upgrade's values,
// as the operator judged them from the two plans and their render flags (CLI-2, RO-8).
func TestDescribe_ValuesChangeBesideTheAssessment(t *testing.T) {
	t.Parallel()
	repo := []string{"--set-json", `gpu-operator:driver.repository="nvcr.io/nvidia"`}
	evil := []string{"--set-json", `gpu-operator:driver.repository="registry.evil.example"`}
	tests := []struct {
		name       string
		objs       func(from, to *domain.Plan) []runtime.Object
		toVersion  string
		assessment string
		warning    string
	}{
		{name: "an override changed the values under a safe verdict", toVersion: "1.1.0",
			objs: func(from, to *domain.Plan) []runtime.Object {
				return storedPlans(t, nil, planstoretest.Plan{Plan: from, RenderFlags: repo}, planstoretest.Plan{Plan: to, RenderFlags: evil})
			},
			assessment: "safe; values changed by overrides: gpu-operator:driver.repository"},
		{name: "values changed with the version only: the verdict covers them", toVersion: "1.1.0",
			objs: func(from, to *domain.Plan) []runtime.Object {
				return storedPlans(t, nil, planstoretest.Plan{Plan: from, RenderFlags: repo}, planstoretest.Plan{Plan: to, RenderFlags: repo})
			},
			assessment: "safe"},
		{name: "values changed without a version change", toVersion: "1.0.0",
			objs: func(from, to *domain.Plan) []runtime.Object {
				return storedPlans(t, nil, planstoretest.Plan{Plan: from, RenderFlags: repo}, planstoretest.Plan{Plan: to, RenderFlags: repo})
			},
			assessment: "safe; values changed without a chart version change for AICR's verdict to cover"},
		{name: "plans gone: the verdict alone", toVersion: "1.1.0",
			objs:       func(*domain.Plan, *domain.Plan) []runtime.Object { return nil },
			assessment: "safe"},
		{name: "a ConfigMap under the plan's name that is not the plan is warned about", toVersion: "1.1.0",
			objs: func(from, to *domain.Plan) []runtime.Object {
				forge := func(s planstoretest.Store) {
					name, err := configdoc.PlanConfigMapName(from.Digest)
					require.NoError(t, err)
					s.Tamper(t, name, func(cm *corev1.ConfigMap) { cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] = to.Digest })
				}
				return storedPlans(t, forge, planstoretest.Plan{Plan: from, RenderFlags: repo}, planstoretest.Plan{Plan: to, RenderFlags: evil})
			},
			assessment: "safe", warning: "its plan-digest annotation is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			from := describedPlan(t, "1.0.0", "nvcr.io/nvidia")
			to := describedPlan(t, tt.toVersion, "registry.evil.example")
			ro := upgradeRollout(from, to)
			out, errOut, code, _ := fakeRunWith(t, ro, tt.objs(from, to), "alice", "describe", ro.Name)
			require.Equal(t, 0, code, errOut)
			assert.Regexp(t, `1/2\s+cert-manager\s+Verify\s+none\s+-`, out)
			assert.Regexp(t, `2/2\s+gpu-operator\s+Upgrade\s+`+regexp.QuoteMeta(tt.assessment)+`\s+-\s+`, out)
			if tt.warning == "" {
				assert.Empty(t, errOut)
				return
			}
			assert.Contains(t, errOut, tt.warning)
		})
	}
}

// TestDescribe_MarksDisruptiveSteps: describe marks each step that may disrupt the accelerated
// nodes with why, and the steps approvers let go.
func TestDescribe_MarksDisruptiveSteps(t *testing.T) {
	t.Parallel()
	from := describedPlan(t, "1.0.0", "nvcr.io/nvidia")
	to := describedPlan(t, "1.1.0", "nvcr.io/nvidia")
	ro := upgradeRollout(from, to)
	out, errOut, code, _ := fakeRunWith(t, ro, nil, "alice", "describe", ro.Name)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Disruptive steps: none (no step can disrupt the accelerated nodes)")

	ro.Spec.Steps[1].Disruption = "gpu-operator runs node-level agents on the accelerated nodes"
	ro.Spec.Approval = &aicrv1alpha1.Approval{DisruptionOverrides: []aicrv1alpha1.DisruptionOverride{{
		Release: "gpu-operator", OverriddenBy: "bob", OverriddenAt: metav1.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC),
		Reason: "job checkpointed"}}}
	out, errOut, code, _ = fakeRunWith(t, ro, nil, "alice", "describe", ro.Name)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Disruptive steps (1; they start only as the runtime's changePolicy allows, the others at once):\n"+
		"  2/2 gpu-operator (Upgrade): gpu-operator runs node-level agents on the accelerated nodes\n"+
		"Let go: gpu-operator by bob at 2026-12-02T03:00:00Z (reason: job checkpointed)\n")
	assert.NotContains(t, out, "cert-manager (Verify):", "a step that cannot disrupt is not marked")
}
