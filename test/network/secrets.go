package network

import (
	"context"
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateRegistrySecrets creates what an administrator creates for the chart's static registry
// credential provider (registry.auth.provider static): the docker config Secret the operator in
// operatorNamespace reads by name, and Argo CD's repo-creds Secret in argocd, for the server at
// host (which takes any login).
func CreateRegistrySecrets(ctx context.Context, c client.Client, operatorNamespace, host string) error {
	login := base64.StdEncoding.EncodeToString([]byte("demo:demo"))
	secrets := []*corev1.Secret{{
		ObjectMeta: metav1.ObjectMeta{Name: "aicr-registry-auth", Namespace: operatorNamespace},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, host, login)},
	}, {
		ObjectMeta: metav1.ObjectMeta{Name: "aicr-registry", Namespace: "argocd",
			Labels: map[string]string{"argocd.argoproj.io/secret-type": "repo-creds"}},
		StringData: map[string]string{"type": "helm", "enableOCI": "true", "url": host + "/aicr", "username": "demo", "password": "demo"},
	}}
	for _, s := range secrets {
		if err := c.Create(ctx, s); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
	}
	return nil
}
