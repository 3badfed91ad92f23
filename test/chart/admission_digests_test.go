package chart_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// admissionDigests computes in Go, with the operator's own AdmissionDigest, the
// --admission-digests value of the rendered policies and bindings: the Deployment must pass
// exactly this, so the chart's template and the operator hash the same content the same way.
func admissionDigests(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var pairs []string
	for _, name := range shared.ChartAdmissionPolicies {
		var policy admissionregistrationv1.ValidatingAdmissionPolicy
		var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
		for _, o := range []struct {
			kind string
			into any
		}{{"ValidatingAdmissionPolicy", &policy}, {"ValidatingAdmissionPolicyBinding", &binding}} {
			u := find(objs, o.kind, "", name)
			require.NotNil(t, u, "the chart renders %s %s", o.kind, name)
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o.into))
		}
		digest, err := shared.AdmissionDigest(policy.Spec, binding.Spec)
		require.NoError(t, err)
		pairs = append(pairs, name+"="+digest)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}
