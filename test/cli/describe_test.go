package cli_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

var update = flag.Bool("update", false, "rewrite the describe golden files")

// assessmentReport stores testdata/report.json as the operator keeps it and returns its digest.
func assessmentReport(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "report.json"))
	require.NoError(t, err)
	digest := configdoc.ContentDigest(raw)
	name, err := configdoc.AssessmentConfigMapName(digestA, digestB, digest)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS,
			Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment}},
		Data: map[string]string{configdoc.ReportKey: string(raw)},
	}
	err = clientFor(operatorConfig()).Create(context.Background(), cm)
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	return digest
}

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o600))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

func TestDescribe_Golden(t *testing.T) {
	needEnv(t)
	report := assessmentReport(t)
	tests := []struct {
		name string
		fx   func() fixture
	}{
		{name: "initial-install-awaiting-approval", fx: func() fixture {
			ro := rolloutObject("rollout-5c1e0f2a9b8d7c61-1")
			ro.Spec.FromPlanDigest, ro.Spec.StartingInventoryDigest = "", ""
			for i := range ro.Spec.Steps {
				ro.Spec.Steps[i].Operation, ro.Spec.Steps[i].Assessment = aicrv1alpha1.OperationInstall, "none"
			}
			return fixture{ro: ro, status: &aicrv1alpha1.RuntimeRolloutStatus{
				Phase: aicrv1alpha1.PhaseAwaitingApproval, Message: "rollout awaits approval before step 1/3 gpu-operator (Install)",
			}}
		}},
		{name: "upgrade-in-progress-with-assessment", fx: func() fixture {
			ro := rolloutObject("rollout-3f9a1c0d2b7e4a51-1")
			ro.Spec.AssessmentDigest = report
			return fixture{ro: ro, approval: approved(), status: &aicrv1alpha1.RuntimeRolloutStatus{
				Phase: aicrv1alpha1.PhaseProgressing, Message: "step 2/3 nvsentinel (Upgrade)", CurrentStep: 2,
				Releases: []aicrv1alpha1.ReleaseStatus{
					{Release: "gpu-operator", State: "Ready"},
					{Release: "nvsentinel", State: "InFlight", Message: "Progressing: 3/4 pods ready"},
				},
			}}
		}},
		{name: "revoked", fx: func() fixture {
			a := approved()
			a.RevokedBy, a.RevokedAt, a.RevokeReason = approverUser, ts(now), "Training job not checkpointed"
			return fixture{ro: rolloutObject("rollout-3f9a1c0d2b7e4a51-2"), approval: a, outcome: "Revoked",
				status: &aicrv1alpha1.RuntimeRolloutStatus{
					Phase: aicrv1alpha1.PhaseRevoked, Message: "approval revoked by approver-alice", CurrentStep: 1,
					Releases: []aicrv1alpha1.ReleaseStatus{{Release: "gpu-operator", State: "Ready"}},
				}}
		}},
		{name: "acknowledged", fx: func() fixture {
			a := approved()
			a.Acknowledgements = []aicrv1alpha1.Acknowledgement{
				{Release: "nvsentinel", AcknowledgedBy: approverUser, AcknowledgedAt: *ts(now)},
			}
			return fixture{ro: rolloutObject("rollout-3f9a1c0d2b7e4a51-3"), approval: a,
				status: &aicrv1alpha1.RuntimeRolloutStatus{
					Phase: aicrv1alpha1.PhaseProgressing, Message: "step 3/3 kai-scheduler (Install)", CurrentStep: 3,
					Releases: []aicrv1alpha1.ReleaseStatus{
						{Release: "gpu-operator", State: "Ready"}, {Release: "nvsentinel", State: "Ready"},
						{Release: "kai-scheduler", State: "InFlight"},
					},
				}}
		}},
		{name: "restored-without-status", fx: func() fixture {
			return fixture{ro: rolloutObject("rollout-3f9a1c0d2b7e4a51-4"), approval: approved(), outcome: "Succeeded"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.fx().create(t)
			// The golden output shows the name, so it is fixed: delete the rollout, so the
			// next run (go test -count) creates it again.
			t.Cleanup(func() { deleteRollout(t, name) })

			r := run(approverUser, "describe", name)

			requireOK(t, r)
			golden(t, tt.name, r.stdout)
		})
	}
}

func TestDescribe_ReportNotMatchingTheRecordedDigest(t *testing.T) {
	needEnv(t)
	t.Parallel()
	report := assessmentReport(t)
	ro := newRollout()
	ro.Spec.AssessmentDigest = digestOf("another report")
	name := fixture{ro: ro}.create(t)
	missing, err := configdoc.AssessmentConfigMapName(ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest, ro.Spec.AssessmentDigest)
	require.NoError(t, err)
	require.NotEqual(t, report, ro.Spec.AssessmentDigest)

	r := run(approverUser, "describe", name, "--operator-namespace", operatorNS)

	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "\nAssessment: none\n")
	assert.NotContains(t, r.stdout, "Recorded steps")
	assert.Equal(t, "warning: upgrade-check report aicr-system/"+missing+" not found\n", r.stderr)
}

// TestDescribe_InventorySizeNotRecorded: a rollout without the size annotation (created
// before the operator recorded it) shows the digest and says the size is not recorded (CLI-2).
func TestDescribe_InventorySizeNotRecorded(t *testing.T) {
	needEnv(t)
	t.Parallel()
	ro := newRollout()
	ro.Annotations = nil
	name := fixture{ro: ro}.create(t)

	r := run(approverUser, "describe", name, "--operator-namespace", operatorNS)

	requireOK(t, r)
	assert.Contains(t, r.stdout, "Starting inventory: size not recorded, "+ro.Spec.StartingInventoryDigest+"\n")
}

// TestDescribe_ReportVerifiedAgainstTheRecordedDigest: a ConfigMap under the name of the
// recorded digest is shown only if it is an upgrade-check report whose content has that
// digest; otherwise describe warns and prints Assessment: none (CLI-2).
func TestDescribe_ReportVerifiedAgainstTheRecordedDigest(t *testing.T) {
	needEnv(t)
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "report.json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   func(cm, recorded string) string
	}{
		{"content of another digest", map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment},
			func(cm, recorded string) string {
				return "warning: upgrade-check report aicr-system/" + cm + " has digest " + configdoc.ContentDigest(raw) +
					", the rollout records " + recorded + "\n"
			}},
		{"not labelled a report", nil, func(cm, _ string) string {
			return "warning: configmap aicr-system/" + cm + " is not an upgrade-check report\n"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ro := newRollout()
			// The rollout name is new on every run, and so is the report ConfigMap named after it.
			ro.Spec.AssessmentDigest = digestOf("recorded report: " + tc.name + " for " + ro.Name)
			cmName, err := configdoc.AssessmentConfigMapName(ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest, ro.Spec.AssessmentDigest)
			require.NoError(t, err)
			require.NoError(t, clientFor(operatorConfig()).Create(context.Background(), &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: cmName, Namespace: operatorNS, Labels: tc.labels},
				Data:       map[string]string{configdoc.ReportKey: string(raw)},
			}))
			name := fixture{ro: ro}.create(t)

			r := run(approverUser, "describe", name, "--operator-namespace", operatorNS)

			require.Equal(t, 0, r.code)
			assert.Contains(t, r.stdout, "\nAssessment: none\n")
			assert.Equal(t, tc.want(cmName, ro.Spec.AssessmentDigest), r.stderr)
		})
	}
}

func TestDescribe_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: newRollout()}.create(t)

	r := run(strangerUser, "describe", name)

	requireRefused(t, r, `User "stranger-sam" cannot get resource "runtimerollouts" in API group "operator.aicr.run"`)
}
