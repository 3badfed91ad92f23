package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// TestNamespace_OperatorNamespaceFlag: describe reads the upgrade-check report from
// --operator-namespace; -n keeps its kubectl meaning, so alone it leaves the operator
// namespace at aicr-system and says so.
func TestNamespace_OperatorNamespaceFlag(t *testing.T) {
	needEnv(t)
	t.Parallel()
	ro := newRollout()
	ro.Spec.AssessmentDigest = digestOf("a report nobody wrote")
	name := fixture{ro: ro}.create(t)
	report, err := configdoc.AssessmentConfigMapName(ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest, ro.Spec.AssessmentDigest)
	require.NoError(t, err)

	// As the administrator: a report missing from any namespace is "not found", never forbidden.
	r := asAdmin("describe", name, "--operator-namespace", "aicr-elsewhere")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "warning: upgrade-check report aicr-elsewhere/"+report+" not found\n", r.stderr)

	r = asAdmin("describe", name, "-n", "aicr-elsewhere")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "warning: -n/--namespace is the kubectl namespace and does not select the operator namespace; "+
		"using --operator-namespace aicr-system\n"+
		"warning: upgrade-check report aicr-system/"+report+" not found\n", r.stderr)

	r = asAdmin("describe", name, "-n", "default", "--operator-namespace", "aicr-elsewhere")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "warning: upgrade-check report aicr-elsewhere/"+report+" not found\n", r.stderr)
}

// asAdmin runs kubectl aicr as the suite's administrator.
func asAdmin(args ...string) result {
	return runAt(now, 0, append([]string{"--kubeconfig", kubeconfig}, args...)...)
}
