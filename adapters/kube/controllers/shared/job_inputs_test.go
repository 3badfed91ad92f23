package shared

import (
	"testing"

	"github.com/stretchr/testify/assert"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// AICR v1's toleration values split on ':' into exactly a key part and an effect.
func TestTolerationFlags_AICRGrammar(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   aicrv1alpha1.Toleration
		want []string
	}{
		{"every taint", aicrv1alpha1.Toleration{Operator: "Exists"}, []string{"*"}},
		{"equal with effect", aicrv1alpha1.Toleration{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}, []string{"dedicated=gpu:NoSchedule"}},
		{"exists with effect", aicrv1alpha1.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoExecute"}, []string{"nvidia.com/gpu:NoExecute"}},
		{"exists of any effect", aicrv1alpha1.Toleration{Key: "nvidia.com/gpu", Operator: "Exists"},
			[]string{"nvidia.com/gpu:NoSchedule", "nvidia.com/gpu:PreferNoSchedule", "nvidia.com/gpu:NoExecute"}},
		{"equal of any effect", aicrv1alpha1.Toleration{Key: "dedicated", Value: "gpu"},
			[]string{"dedicated=gpu:NoSchedule", "dedicated=gpu:PreferNoSchedule", "dedicated=gpu:NoExecute"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tolerationFlags(tt.in))
		})
	}
}

// A component's top-level toggle goes through --set (AICR v1 refuses it in --set-json); every
// other path, nested enabled flags included, through --set-json.
func TestBundleArgs_ToggleThroughSet(t *testing.T) {
	cr := &aicrv1alpha1.ClusterRuntime{Spec: aicrv1alpha1.ClusterRuntimeSpec{Overrides: []aicrv1alpha1.Override{
		{Component: "nvsentinel", Path: "enabled", Value: apiextensionsv1.JSON{Raw: []byte("false")}},
		{Component: "gpu-operator", Path: "gds.enabled", Value: apiextensionsv1.JSON{Raw: []byte("true")}},
	}}}
	assert.Equal(t, []string{"--set", "nvsentinel:enabled=false", "--set-json", "gpu-operator:gds.enabled=true"}, BundleArgs(cr))
}

func TestBundleArgs_PlacementFlags(t *testing.T) {
	t.Parallel()
	cr := &aicrv1alpha1.ClusterRuntime{Spec: aicrv1alpha1.ClusterRuntimeSpec{
		Placement: aicrv1alpha1.Placement{
			System: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"pool": "system"}},
			Accelerated: aicrv1alpha1.NodeGroup{
				NodeSelector: map[string]aicrv1alpha1.LabelValue{"pool": "gpu", "b": "1"},
				Tolerations: []aicrv1alpha1.Toleration{
					{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"},
					{Key: "dedicated", Value: "gpu", Effect: "NoExecute"},
				},
			},
		},
	}}
	assert.Equal(t, []string{
		"--system-node-selector", "pool=system",
		"--accelerated-node-selector", "b=1", "--accelerated-node-selector", "pool=gpu",
		"--accelerated-node-toleration", "nvidia.com/gpu:NoSchedule",
		"--accelerated-node-toleration", "dedicated=gpu:NoExecute",
	}, BundleArgs(cr))
}
