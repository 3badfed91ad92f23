package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

func TestApprovalReasons(t *testing.T) {
	ro := &aicrv1alpha1.RuntimeRollout{}
	ro.Spec.FromPlanDigest = "sha256:from"
	ro.Spec.Steps = []aicrv1alpha1.Step{
		{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade, Assessment: "safe"},
		{Release: "nvsentinel", Operation: aicrv1alpha1.OperationInstall},
		{Release: "kai-scheduler", Operation: aicrv1alpha1.OperationRemove},
	}
	changes := map[string]string{
		"gpu-operator": "values changed by overrides: gpu-operator:driver.repository",
		// An Install's entry is not a values change describe shows.
		"nvsentinel": "values changed by placement",
	}
	assert.Nil(t, approvalReasons(ro, changes), "a rollout that needs no approval has no reasons")

	ro.Spec.ApprovalRequired = true
	var out bytes.Buffer
	require.NoError(t, writeApprovalReasons(&out, approvalReasons(ro, changes)))
	assert.Equal(t, "\nApproval required because:\n"+
		"  gpu-operator: values changed by overrides: gpu-operator:driver.repository\n"+
		"  kai-scheduler: removes the release\n", out.String())

	ro.Spec.FromPlanDigest = ""
	ro.Spec.Steps = ro.Spec.Steps[1:2]
	out.Reset()
	require.NoError(t, writeApprovalReasons(&out, approvalReasons(ro, nil)))
	assert.Equal(t, "\nApproval required because:\n  "+unexplainedApproval+"\n", out.String(),
		"an initial install with overrides needs an approval its steps do not show")
}
