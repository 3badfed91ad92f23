package rollout_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/runtime"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// The assessment reader finds the resolver's upgrade-check report of a transition (AICR v1's
// own mixed golden) and maps each row's verdict, and a row whose record lists a precondition
// or steps to recorded steps acknowledged before the apply (RO-9).
func TestRuntimeAssessmentReader(t *testing.T) {
	cleanCluster(t)
	from, to := "sha256:"+"aa"+zeros[2:], "sha256:"+"bb"+zeros[2:]
	golden, err := os.ReadFile(filepath.Join("..", "testdata", "aicr", "v1-reference", "pkg", "upgrade", "testdata",
		"report-mixed.json.golden"))
	require.NoError(t, err)
	raw := string(golden)
	name, err := configdoc.AssessmentConfigMapName(from, to, configdoc.ContentDigest([]byte(raw)))
	require.NoError(t, err)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNamespace,
			Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment,
				aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue},
			Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: to, aicrv1alpha1.Prefix + "from-plan-digest": from}},
		Data: map[string]string{configdoc.ReportKey: raw},
	}
	require.NoError(t, k8s.Create(context.Background(), cm))
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), cm) })
	read := runtime.NewAssessmentReader(k8s, operatorNamespace, sealtest.New())
	rows, digest, err := read(context.Background(), "", from, to)
	require.NoError(t, err)
	assert.Empty(t, rows, "a report without the operator's seal is never used, its name and content matching or not")
	assert.Empty(t, digest)
	planstore.SealAssessment(sealtest.New(), cm)
	require.NoError(t, k8s.Update(context.Background(), cm))

	rows, digest, err = read(context.Background(), "", from, to)
	require.NoError(t, err)
	assert.Equal(t, configdoc.ContentDigest([]byte(raw)), digest)
	byName := map[string]ports.ComponentAssessment{}
	for _, a := range rows {
		byName[a.Component] = a
	}
	assert.Equal(t, ports.ComponentAssessment{Component: "beta-operator", Verdict: ports.VerdictManual, Reason: "recorded",
		RecordedSteps: true}, byName["beta-operator"])
	assert.Equal(t, ports.ComponentAssessment{Component: "alpha-operator", Verdict: ports.VerdictSafe, Reason: "recorded"},
		byName["alpha-operator"])
	assert.Equal(t, ports.ComponentAssessment{Component: "delta-operator", Verdict: ports.VerdictUnknown, Reason: "no-record"},
		byName["delta-operator"])
	rows, digest, err = read(context.Background(), "", to, from)
	require.NoError(t, err)
	assert.Empty(t, rows)
	assert.Empty(t, digest)

	// A report whose content is not the one its name was made from is never used: the name
	// binds the report to the transition (issue "trust chain", a safe verdict planted).
	forged := cm.DeepCopy()
	forged.ResourceVersion, forged.UID = "", ""
	forged.Name = name[:len(name)-4] + "0000"
	forged.Data = map[string]string{configdoc.ReportKey: `{"components":[{"component":"beta-operator","change":"version","verdict":"safe"}]}`}
	require.NoError(t, k8s.Delete(context.Background(), cm))
	require.NoError(t, k8s.Create(context.Background(), forged))
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), forged) })
	rows, digest, err = read(context.Background(), "", from, to)
	require.NoError(t, err)
	assert.Empty(t, rows, "a report under another name is ignored")
	assert.Empty(t, digest)
}
