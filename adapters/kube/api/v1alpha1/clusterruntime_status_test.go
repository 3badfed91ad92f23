package v1alpha1_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestClusterRuntimeStatusBounds writes status through the status subresource of the one
// persisted ClusterRuntime. It is deliberately not parallel: Go finishes it (cleanup included)
// before the parallel tests start, whose dry-run creates of "cluster" would otherwise collide.
func TestClusterRuntimeStatusBounds(t *testing.T) {
	ctx := context.Background()
	cr := validRuntime()
	require.NoError(t, k8s.Create(ctx, cr))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, cr))) })

	cases := []struct {
		name    string
		count   int
		msgLen  int
		wantErr string
	}{
		{"CR-4 16 conditions are accepted", 16, 8, ""},
		{"CR-4 17 conditions are refused", 17, 8, "status.conditions: Too many: 17: must have at most 16 items"},
		{"CR-4 a condition message of 1024 characters is accepted", 1, 1024, ""},
		{"CR-4 a condition message of 1025 characters is refused", 1, 1025, "condition messages are at most 1024 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := cr.DeepCopy()
			obj.Status = aicrv1alpha1.ClusterRuntimeStatus{Conditions: conditions(tc.count, tc.msgLen)}
			expectAdmission(t, k8s.Status().Update(ctx, obj, client.DryRunAll), tc.wantErr)
		})
	}
}
