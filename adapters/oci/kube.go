package oci

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/ports"
)

// KubeSecrets reads Secrets of one namespace through a controller-runtime reader.
type KubeSecrets struct {
	Reader    client.Reader
	Namespace string
}

var _ SecretReader = KubeSecrets{}

// ReadSecret returns the data of Secret name.
func (k KubeSecrets) ReadSecret(ctx context.Context, name string) (map[string][]byte, error) {
	var s corev1.Secret
	if err := k.Reader.Get(ctx, client.ObjectKey{Namespace: k.Namespace, Name: name}, &s); err != nil {
		return nil, kubeErr("get secret "+k.Namespace+"/"+name, err)
	}
	return s.Data, nil
}

var _ LoginReader = KubeSecrets{}

// ReadLogin returns the username and password of the kubernetes.io/basic-auth Secret name; a
// Secret of another type, or without a username or password, is refused with
// ports.ErrCredentialsUnavailable.
func (k KubeSecrets) ReadLogin(ctx context.Context, name string) (Login, error) {
	var s corev1.Secret
	key := k.Namespace + "/" + name
	if err := k.Reader.Get(ctx, client.ObjectKey{Namespace: k.Namespace, Name: name}, &s); err != nil {
		return Login{}, kubeErr("get secret "+key, err)
	}
	if s.Type != corev1.SecretTypeBasicAuth {
		typ := s.Type
		if typ == "" {
			typ = corev1.SecretTypeOpaque
		}
		return Login{}, fmt.Errorf("secret %s is of type %s: it must be %s (keys username and password): %w",
			key, typ, corev1.SecretTypeBasicAuth, ports.ErrCredentialsUnavailable)
	}
	login := Login{Username: string(s.Data[corev1.BasicAuthUsernameKey]), Password: string(s.Data[corev1.BasicAuthPasswordKey])}
	if login.Username == "" || login.Password == "" {
		return Login{}, fmt.Errorf("secret %s has no username or no password: %w", key, ports.ErrCredentialsUnavailable)
	}
	return login, nil
}

func kubeErr(what string, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s: %w: %w", what, ports.ErrCredentialsUnavailable, err)
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: %w: %w", what, ports.ErrUnauthorized, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Argo CD repository-credentials Secret format.
const (
	argoSecretTypeLabel = "argocd.argoproj.io/secret-type" //nolint:gosec // a label key, not a credential
	argoRepoCreds       = "repo-creds"                     //nolint:gosec // a label value, not a credential
)

// ArgoRepoCreds writes registry logins into Argo CD's repository-credentials
// Secret (label argocd.argoproj.io/secret-type: repo-creds); only the aws
// provider uses it, to store Argo CD's pull-only ECR token. The chart creates
// the Secret (type oci, url, username AWS); the operator may only get and
// update it by name, so a missing Secret is ports.ErrCredentialsUnavailable
// and is never created here. Every write sets username and password and keeps
// the other keys; URL and Type, when set, also set url and type (type helm
// adds enableOCI: "true").
type ArgoRepoCreds struct {
	Client    client.Client
	Namespace string
	Name      string
	// URL is the credential's URL prefix (empty: keep the chart's).
	URL string
	// Type is the repository type, oci or helm (empty: keep the chart's).
	Type string
}

var _ RepoCredsWriter = ArgoRepoCreds{}

// WriteRepoCreds updates the Secret with login; an identical Secret is not written.
func (a ArgoRepoCreds) WriteRepoCreds(ctx context.Context, login Login) error {
	var s corev1.Secret
	key := client.ObjectKey{Namespace: a.Namespace, Name: a.Name}
	if err := a.Client.Get(ctx, key, &s); err != nil {
		return kubeErr("get repo-creds secret "+key.String(), err)
	}
	want := map[string][]byte{"username": []byte(login.Username), "password": []byte(login.Password)}
	if a.URL != "" || a.Type != "" {
		for k, v := range RepoCredsData(a.URL, a.Type, login) {
			if len(v) > 0 {
				want[k] = v
			}
		}
	}
	same := s.Labels[argoSecretTypeLabel] == argoRepoCreds && len(s.StringData) == 0
	for k, v := range want {
		same = same && string(s.Data[k]) == string(v)
	}
	if same {
		return nil
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	s.Labels[argoSecretTypeLabel] = argoRepoCreds
	for k, v := range want {
		s.Data[k] = v
	}
	if err := a.Client.Update(ctx, &s); err != nil {
		return kubeErr("update repo-creds secret "+key.String(), err)
	}
	return nil
}

// RepoCredsData is the data of Argo CD's repo-creds Secret for url, the
// repository type (oci or helm; helm adds enableOCI: "true") and login.
func RepoCredsData(url, typ string, login Login) map[string][]byte {
	d := map[string][]byte{
		"url": []byte(url), "username": []byte(login.Username), "password": []byte(login.Password), "type": []byte(typ),
	}
	if typ == "helm" {
		d["enableOCI"] = []byte("true")
	}
	return d
}
