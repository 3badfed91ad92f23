package cli_test

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// Identities and names of the suite.
const (
	operatorNS   = "aicr-system"
	operatorUser = "system:serviceaccount:" + operatorNS + ":aicr-operator"
	approverUser = "approver-alice"
	// groupMember approves through approverGroup, which the chart values list.
	groupMember   = "approver-bob"
	approverGroup = "gpu-platform-approvers"
	editorUser    = "editor-eve"
	strangerUser  = "stranger-sam"
	// platformUser may patch the ClusterRuntime, and nothing of the approvers'.
	platformUser = "platform-pat"
)

// operatorGroups are the groups the API server gives the operator's ServiceAccount.
var operatorGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNS}

// chartValues install the chart with approver-alice and the gpu-platform-approvers group as approvers.
func chartValues() map[string]any {
	return map[string]any{
		"registry": map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{
			"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}},
		},
		"approvers": map[string]any{"users": []any{approverUser}, "groups": []any{approverGroup}},
	}
}

// render renders the chart as `helm template` does (shared with the demo: test/chartrender).
func render(values map[string]any) ([]*unstructured.Unstructured, error) {
	return chartrender.Render(operatorNS, values)
}
