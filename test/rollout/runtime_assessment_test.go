package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/adapters/kube/controllers/runtime"
	"github.com/nvidia/aicr-operator/ports"
)

// The assessment reader finds the resolver's upgrade-check report of a transition and maps a
// manual row with Argo CD steps to an acknowledgement after the apply (RO-9).
func TestRuntimeAssessmentReader(t *testing.T) {
	cleanCluster(t)
	from, to := "sha256:"+"aa"+zeros[2:], "sha256:"+"bb"+zeros[2:]
	raw := `{"summary":{"components":2,"failing":1},"components":[` +
		`{"component":"gpu-operator","verdict":"manual","transitions":[{"from":"v25","to":"v26",` +
		`"stepsByDeployer":[{"deployers":["argocd"],"steps":[{"id":"relabel","description":"relabel nodes"}]}]}]},` +
		`{"component":"cert-manager","verdict":"safe"}]}`
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

	read := runtime.NewAssessmentReader(k8s, operatorNamespace)
	rows, digest, err := read(context.Background(), "", from, to)
	require.NoError(t, err)
	assert.Equal(t, configdoc.ContentDigest([]byte(raw)), digest)
	assert.Equal(t, []ports.ComponentAssessment{
		{Component: "gpu-operator", Verdict: ports.VerdictManual, StepsAfterApply: true},
		{Component: "cert-manager", Verdict: ports.VerdictSafe},
	}, rows)
	rows, digest, err = read(context.Background(), "", to, from)
	require.NoError(t, err)
	assert.Empty(t, rows)
	assert.Empty(t, digest)

	// A report whose content is not the one its name was made from is never used: the name
	// binds the report to the transition (issue "trust chain", a safe verdict planted).
	forged := cm.DeepCopy()
	forged.ResourceVersion, forged.UID = "", ""
	forged.Name = name[:len(name)-4] + "0000"
	forged.Data = map[string]string{configdoc.ReportKey: `{"components":[{"component":"gpu-operator","verdict":"safe"}]}`}
	require.NoError(t, k8s.Delete(context.Background(), cm))
	require.NoError(t, k8s.Create(context.Background(), forged))
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), forged) })
	rows, digest, err = read(context.Background(), "", from, to)
	require.NoError(t, err)
	assert.Empty(t, rows, "a report under another name is ignored")
	assert.Empty(t, digest)
}
