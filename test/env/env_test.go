package env_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/test/env"
)

// TestKubeConfigAuthenticatesAsTheUser starts a control plane (the one test in this package),
// writes an administrator's kubeconfig and lists namespaces with it.
func TestKubeConfigAuthenticatesAsTheUser(t *testing.T) {
	cp, err := env.Start(env.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cp.Stop()) })

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
