package chart_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// TestOperatorChecksEveryPolicyTheChartRenders: the operator stalls AdmissionPolicyMissing when
// a policy it relies on is missing (issue "trust chain", item 9), so the list it checks is the
// chart's: every ValidatingAdmissionPolicy the chart renders, each with a binding of its name
// that denies, and nothing else.
func TestOperatorChecksEveryPolicyTheChartRenders(t *testing.T) {
	t.Parallel()
	objs, err := render(withValues(map[string]any{"validation.enabled": true}))
	require.NoError(t, err)
	var policies, bindings []string
	for _, o := range objs {
		switch o.GetKind() {
		case "ValidatingAdmissionPolicy":
			policies = append(policies, o.GetName())
		case "ValidatingAdmissionPolicyBinding":
			bindings = append(bindings, o.GetName())
			name, _, _ := unstructured.NestedString(o.Object, "spec", "policyName")
			assert.Equal(t, o.GetName(), name, "binding %s binds its own policy", o.GetName())
		}
	}
	want := append([]string(nil), shared.ChartAdmissionPolicies...)
	sort.Strings(want)
	sort.Strings(policies)
	sort.Strings(bindings)
	assert.Equal(t, want, policies)
	assert.Equal(t, want, bindings)
}
