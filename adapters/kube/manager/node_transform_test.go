package manager_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nvidia/aicr-operator/adapters/kube/manager"
)

// TestNodeLabelsOnly: the Node cache keeps what discovery reads (name, labels) and what the
// cache tracks (UID, resourceVersion), never a GPU node's spec or status (issue 19: memory
// grows with the plan, not with the fleet).
func TestNodeLabelsOnly(t *testing.T) {
	t.Parallel()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", UID: "u", ResourceVersion: "7",
			Labels:      map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"}},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/i-0123"},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
			Images:      []corev1.ContainerImage{{Names: []string{"nvcr.io/nvidia/driver:580"}, SizeBytes: 1 << 30}},
		},
	}
	out, err := manager.NodeLabelsOnly(node)
	require.NoError(t, err)
	got := out.(*corev1.Node)
	assert.Equal(t, node.Name, got.Name)
	assert.Equal(t, node.Labels, got.Labels)
	assert.Equal(t, node.ResourceVersion, got.ResourceVersion)
	assert.Empty(t, got.Annotations)
	assert.Equal(t, corev1.NodeSpec{}, got.Spec)
	assert.Equal(t, corev1.NodeStatus{}, got.Status)

	cm := &corev1.ConfigMap{}
	other, err := manager.NodeLabelsOnly(cm)
	require.NoError(t, err)
	assert.Same(t, cm, other, "other kinds pass unchanged")
}
