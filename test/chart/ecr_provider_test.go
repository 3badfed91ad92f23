package chart_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ecrInstallValues are the values of a minimal EKS install: an ECR repository, the operator's
// IRSA role, one component namespace, approvers and validation, and no registry provider.
func ecrInstallValues() map[string]any {
	return map[string]any{
		"registry": map[string]any{"repository": "oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/aicr"},
		"operator": map[string]any{"serviceAccountAnnotations": map[string]any{
			"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/aicr-operator",
		}},
		"namespaces": map[string]any{"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}}},
		"approvers":  map[string]any{"groups": []any{"gpu-platform-approvers"}},
		"validation": map[string]any{"enabled": true},
	}
}

// TestRenderECRNeedsTheAWSProvider: an ECR repository with any provider but aws is refused with
// a message that says what to set, since only the aws provider refreshes ECR's 12-hour tokens;
// with the aws provider and its pull role the same values install.
func TestRenderECRNeedsTheAWSProvider(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"", "static", "inCluster"} {
		v := ecrInstallValues()
		if provider != "" {
			v["registry"].(map[string]any)["auth"] = map[string]any{"provider": provider}
		}
		_, err := render(v)
		require.Error(t, err, "provider %q", provider)
		assert.Contains(t, err.Error(), "registry.repository oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/aicr is in ECR, "+
			"whose login tokens expire after 12 hours: set registry.auth.provider: aws", "provider %q", provider)
	}
	for _, host := range []string{"123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com", "123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn"} {
		v := ecrInstallValues()
		v["registry"].(map[string]any)["repository"] = "oci://" + host + "/aicr"
		_, err := render(v)
		require.ErrorContains(t, err, "is in ECR", host)
	}

	v := ecrInstallValues()
	v["registry"].(map[string]any)["auth"] = map[string]any{
		"provider": "aws", "awsPullRoleArn": "arn:aws:iam::123456789012:role/aicr-argocd-pull",
	}
	objs, err := render(v)
	require.NoError(t, err)
	assert.NotNil(t, find(objs, "Deployment", releaseNamespace, "aicr-operator"))

	other := ecrInstallValues()
	other["registry"] = map[string]any{"repository": "oci://registry.example.com/aicr/ecr"}
	_, err = render(other)
	require.NoError(t, err, "a repository outside ECR keeps the static default")
}
