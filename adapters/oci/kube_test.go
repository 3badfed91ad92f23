package oci_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

const ecrURL = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/aicr"

func TestArgoRepoCreds_WritesArgoCDRepoCredsFormat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	initial := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "aicr-registry"}}
	c := fake.NewClientBuilder().WithObjects(initial).Build()
	w := oci.ArgoRepoCreds{Client: c, Namespace: "argocd", Name: "aicr-registry", URL: ecrURL, Type: "helm"}

	require.NoError(t, w.WriteRepoCreds(ctx, oci.Login{Username: "AWS", Password: "token-1"}))
	var s corev1.Secret
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "argocd", Name: "aicr-registry"}, &s))
	assert.Equal(t, "repo-creds", s.Labels["argocd.argoproj.io/secret-type"])
	assert.Equal(t, map[string][]byte{
		"url": []byte(ecrURL), "username": []byte("AWS"), "password": []byte("token-1"),
		"type": []byte("helm"), "enableOCI": []byte("true"),
	}, s.Data)

	rv := s.ResourceVersion
	require.NoError(t, w.WriteRepoCreds(ctx, oci.Login{Username: "AWS", Password: "token-1"}))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(&s), &s))
	assert.Equal(t, rv, s.ResourceVersion, "the same login is not written again")
}

func TestArgoRepoCreds_KeepsTheChartsSecretAndRotatesThePassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	chartSecret := oci.NewRepoCredsSecret("argocd", "aicr-registry", "oci://"+ecrURL, "oci", oci.Login{Username: "AWS"})
	chartSecret.Data["insecureOCIForceHttp"] = []byte("true")
	c := fake.NewClientBuilder().WithObjects(chartSecret).Build()
	w := oci.ArgoRepoCreds{Client: c, Namespace: "argocd", Name: "aicr-registry"}

	require.NoError(t, w.WriteRepoCreds(ctx, oci.Login{Username: "AWS", Password: "token-2"}))
	var s corev1.Secret
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(chartSecret), &s))
	assert.Equal(t, map[string][]byte{
		"url": []byte("oci://" + ecrURL), "username": []byte("AWS"), "password": []byte("token-2"),
		"type": []byte("oci"), "insecureOCIForceHttp": []byte("true"),
	}, s.Data)
}

func TestArgoRepoCreds_FailuresMapToSentinels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	missing := oci.ArgoRepoCreds{Client: fake.NewClientBuilder().Build(), Namespace: "argocd", Name: "aicr-registry-creds"}
	require.ErrorIs(t, missing.WriteRepoCreds(ctx, oci.Login{}), ports.ErrCredentialsUnavailable)

	denied := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "aicr-registry-creds", nil)
		},
	}).Build()
	w := oci.ArgoRepoCreds{Client: denied, Namespace: "argocd", Name: "aicr-registry-creds"}
	require.ErrorIs(t, w.WriteRepoCreds(ctx, oci.Login{}), ports.ErrUnauthorized)
	_, err := oci.KubeSecrets{Reader: denied, Namespace: "aicr-system"}.ReadSecret(ctx, "regcred")
	require.ErrorIs(t, err, ports.ErrUnauthorized)
}

func TestKubeSecrets_StaticProviderReadsTheSecretByName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "aicr-system", Name: "regcred"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       dockerConfig("registry.example.com", "admin", "s3cret"),
	}
	p := oci.Static{Secrets: oci.KubeSecrets{Reader: fake.NewClientBuilder().WithObjects(s).Build(), Namespace: "aicr-system"}, SecretName: "regcred"}
	cred, err := p.Credential(ctx, "registry.example.com")
	require.NoError(t, err)
	assert.Equal(t, "admin", cred.Username)
	assert.Equal(t, "s3cret", cred.Password)

	p.SecretName = "absent"
	_, err = p.Credential(ctx, "registry.example.com")
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
}
