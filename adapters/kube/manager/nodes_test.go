package manager_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestCacheHoldsANodeAsItsNameAndALabelsDigest: the Node metadata the
// operator watches is cached as the Node's name and a digest of its labels, which changes when
// a label does and only then; a typed Node read goes to the API server and sees every label.
func TestCacheHoldsANodeAsItsNameAndALabelsDigest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := runs.Add(1)
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu-%d", run),
		Labels:      map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "pool": "gpu"},
		Annotations: map[string]string{"nfd.node.kubernetes.io/feature-labels": "cpu-cpuid.AVX512F,pci-10de.present"}}}
	require.NoError(t, admin.Create(ctx, node))
	t.Cleanup(func() { require.NoError(t, admin.Delete(context.Background(), node)) })

	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: fmt.Sprintf("aicr-system-%d", run), MetricsBindAddress: "0", HealthProbeBindAddress: "0",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))

	cached := func() *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Node"))
		require.NoError(t, mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(node), m))
		return m
	}
	first := cached()
	assert.Equal(t, node.Name, first.Name)
	assert.Equal(t, node.UID, first.UID)
	assert.Len(t, first.Labels, 1, "the labels are replaced by their digest")
	assert.Regexp(t, `^[0-9a-f]{32}$`, first.Labels[manager.NodeLabelsDigest])
	assert.Empty(t, first.Annotations)

	live := &corev1.Node{}
	require.NoError(t, mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(node), live))
	assert.Equal(t, node.Labels, live.Labels, "a typed read bypasses the cache")

	node.Annotations["touched"] = "yes"
	require.NoError(t, admin.Update(ctx, node))
	require.Eventually(t, func() bool { return cached().ResourceVersion == node.ResourceVersion }, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, first.Labels, cached().Labels, "an annotation is not a label: the digest stays")

	node.Labels["pool"] = "gpu-2"
	require.NoError(t, admin.Update(ctx, node))
	require.Eventually(t, func() bool { return cached().ResourceVersion == node.ResourceVersion }, 10*time.Second, 20*time.Millisecond)
	assert.NotEqual(t, first.Labels, cached().Labels, "a relabelled Node has another digest")

	cancel()
	require.NoError(t, <-done)
}
