package env_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/test/env"
)

// cp is the control plane the tests of this package share.
var cp *env.Env

func TestMain(m *testing.M) {
	os.Exit(env.Main(m, env.Options{}, func(started *env.Env) error {
		cp = started
		return nil
	}))
}

// TestKubeConfigAuthenticatesAsTheUser writes an administrator's kubeconfig and lists
// namespaces with it.
func TestKubeConfigAuthenticatesAsTheUser(t *testing.T) {
	raw, err := cp.KubeConfig("demo-admin", "system:masters")
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	var namespaces corev1.NamespaceList
	require.NoError(t, c.List(context.Background(), &namespaces))
	require.NotEmpty(t, namespaces.Items)
}

// TestControlPlaneRunsTheRequestedRelease checks that the started kube-apiserver reports the
// release under test (AICR_ENVTEST_K8S, or the oldest supported one): `make test` runs it
// against 1.34 and `make test-k8s-1.37` against 1.37.
func TestControlPlaneRunsTheRequestedRelease(t *testing.T) {
	requested, err := env.RequestedK8sVersion()
	require.NoError(t, err)
	t.Logf("kube-apiserver %s, requested %s", cp.ServerVersion.GitVersion, requested)
	require.Equal(t, "v"+requested, cp.ServerVersion.GitVersion)
}
