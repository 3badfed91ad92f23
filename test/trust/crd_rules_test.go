package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/domain"
)

const rolloutCRD = "runtimerollouts.operator.aicr.run"

// TestAttack_CRDRulesLoosened: the RuntimeRollout CRD loses the CEL rules of its spec (among
// them the set-once approval), which no admission policy repeats. The CRD still exists and
// serves the kind; its rules are not the ones the operator was built with, so the operator
// stalls until the CRD is whole again.
func TestAttack_CRDRulesLoosened(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: rolloutCRD}, crd))
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	require.NotEmpty(t, spec.XValidations, "the rollout spec has CEL rules to loosen")
	spec.XValidations = nil
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	require.NoError(t, k8s.Update(ctx, crd))
	t.Cleanup(func() { restoreCRD(t, rolloutCRD) })

	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing),
		"CustomResourceDefinition "+rolloutCRD+" does not enforce the rules of this operator's API")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAdmissionPolicyMissing))
	restoreCRD(t, rolloutCRD)
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
}

// restoreCRD puts the versions of the chart's CRD name back as the chart renders them.
func restoreCRD(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	for _, o := range rendered {
		if o.GetKind() != "CustomResourceDefinition" || o.GetName() != name {
			continue
		}
		var want apiextensionsv1.CustomResourceDefinition
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &want))
		live := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: name}, live))
		live.Spec.Versions = want.Spec.Versions
		require.NoError(t, k8s.Update(ctx, live))
		return
	}
	t.Fatalf("the chart renders no CustomResourceDefinition %s", name)
}
