package jobexec

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// PoolLabel is the node label FixtureNodes carry and FixtureRuntimeSpec's node groups select.
const PoolLabel = "aicr.test/pool"

// FixtureNodes are the cluster the fixture renders were made for: one system node and one H100
// node, so AICR's discovery finds both node groups of FixtureRuntimeSpec.
func FixtureNodes() []client.Object {
	return []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sys-1", Labels: map[string]string{PoolLabel: "system"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", Labels: map[string]string{
			PoolLabel: "gpu", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}},
	}
}

// FixtureRuntimeSpec is the runtime the fixture renders resolve: EKS H100 Ubuntu training on
// kubeflow, its node groups on FixtureNodes, deployment validation Disabled.
func FixtureRuntimeSpec() aicrv1alpha1.ClusterRuntimeSpec {
	return aicrv1alpha1.ClusterRuntimeSpec{
		Intent: "training", Platform: "kubeflow",
		Criteria: map[string]aicrv1alpha1.CriterionValue{"service": "eks", "accelerator": "h100", "os": "ubuntu"},
		Placement: aicrv1alpha1.Placement{
			System:      aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{PoolLabel: "system"}},
			Accelerated: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{PoolLabel: "gpu"}},
		},
		Validation: aicrv1alpha1.ValidationPolicy{Deployment: aicrv1alpha1.ValidationDisabled},
	}
}
