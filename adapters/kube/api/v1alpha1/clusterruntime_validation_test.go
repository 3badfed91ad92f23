package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const validDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

const validUID = "0b7c8a4e-6f1d-4c2a-9e3b-5d8f7a6c1e20"

func validRuntime() *aicrv1alpha1.ClusterRuntime {
	return &aicrv1alpha1.ClusterRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: aicrv1alpha1.ClusterRuntimeSpec{
			Intent:   "training",
			Platform: "kubeflow",
			Criteria: map[string]aicrv1alpha1.CriterionValue{"service": "eks", "accelerator": "h100", "os": "ubuntu"},
			Placement: aicrv1alpha1.Placement{
				System: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "system"}},
				Accelerated: aicrv1alpha1.NodeGroup{
					NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu"},
					Tolerations:  []aicrv1alpha1.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}},
				},
			},
		},
	}
}

// runtimeCase is one object the API server must accept (wantErr empty) or refuse with a
// message containing wantErr, reported on wantField when set (the field a rule on an object
// names; how the message shows the object's value differs between Kubernetes releases). Cases
// are created with server-side dry run, so they run in parallel although every ClusterRuntime
// is named cluster.
type runtimeCase struct {
	name      string
	mutate    func(cr *aicrv1alpha1.ClusterRuntime)
	wantErr   string
	wantField string
}

func runRuntimeCases(t *testing.T, cases []runtimeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cr := validRuntime()
			tc.mutate(cr)
			err := k8s.Create(context.Background(), cr, client.DryRunAll)
			expectAdmission(t, err, tc.wantErr)
			if tc.wantField != "" {
				cause, ok := apierrors.StatusCause(err, metav1.CauseTypeFieldValueInvalid)
				require.True(t, ok, "the refusal names no invalid field: %v", err)
				assert.Equal(t, tc.wantField, cause.Field)
			}
		})
	}
}

// expectAdmission asserts that err is nil when wantErr is empty, else that it carries wantErr.
func expectAdmission(t *testing.T, err error, wantErr string) {
	t.Helper()
	if wantErr == "" {
		require.NoError(t, err)
		return
	}
	require.Error(t, err, "the API server accepted an object it must refuse")
	assert.Contains(t, err.Error(), wantErr)
}

func labels(n int) map[string]aicrv1alpha1.LabelValue {
	out := make(map[string]aicrv1alpha1.LabelValue, n)
	for i := range n {
		out["example.com/key-"+string(rune('a'+i%26))+strings.Repeat("x", i/26)] = "v"
	}
	return out
}

func overrides(n int) []aicrv1alpha1.Override {
	out := make([]aicrv1alpha1.Override, n)
	for i := range out {
		out[i] = aicrv1alpha1.Override{Component: "gpu-operator", Path: "a.b" + strings.Repeat("c", i), Value: apiextensionsv1.JSON{Raw: []byte(`true`)}}
	}
	return out
}

// tolerations returns n distinct tolerations AICR's grammar can carry.
func tolerations(n int) []aicrv1alpha1.Toleration {
	out := make([]aicrv1alpha1.Toleration, n)
	for i := range out {
		out[i] = aicrv1alpha1.Toleration{Key: "example.com/taint-" + string(rune('a'+i)), Operator: "Exists"}
	}
	return out
}

func tcpxo(n int) []aicrv1alpha1.TCPXOInterface {
	out := make([]aicrv1alpha1.TCPXOInterface, n)
	for i := range out {
		out[i] = aicrv1alpha1.TCPXOInterface{InterfaceName: "eth" + string(rune('a'+i)), Network: "gpu-nic"}
	}
	return out
}

func withGKE(ifaces []aicrv1alpha1.TCPXOInterface) *aicrv1alpha1.RecipeConfiguration {
	return &aicrv1alpha1.RecipeConfiguration{GKE: &aicrv1alpha1.GKEConfiguration{TCPXOInterfaces: ifaces}}
}
