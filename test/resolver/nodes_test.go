package resolver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// TestResolve_RelabelledNodeResumesDiscovery (RES-2, RES-3): a runtime stalled NodeGroupEmpty
// resolves once a Node is relabelled into its accelerated group, with nothing else changed:
// discovery reads the Nodes from the API server and reuses its outcome only until the Node
// watch sees a Node added, relabelled or deleted.
func TestResolve_RelabelledNodeResumesDiscovery(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	ctx := context.Background()
	spare := node("gpu-spare", map[string]string{"aicr.test/pool": "spare", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"})
	require.NoError(t, k8s.Create(ctx, spare))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(k8s.Delete(context.Background(), spare))) })

	spec := runtimeSpec()
	spec.Placement.Accelerated.NodeSelector = map[string]aicrv1alpha1.LabelValue{"aicr.test/pool": "late"}
	createRuntime(t, spec)
	resolvedWith(t, string(domain.StallNodeGroupEmpty), "placement.accelerated.nodeSelector")

	spare.Labels["aicr.test/pool"] = "late"
	require.NoError(t, k8s.Update(ctx, spare))
	resolved(t, domain.ReasonResolved)
}
