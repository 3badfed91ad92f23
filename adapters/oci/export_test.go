package oci

import (
	"encoding/hex"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Helpers only the tests use: the chart's Secrets as an administrator creates them.

// GenerateLogin returns a fresh registry login for username with 32 random
// bytes from rnd (crypto/rand.Reader) as hex, e.g. for an administrator's
// tooling creating the in-cluster registry's InClusterPushUsername and
// InClusterPullUsername logins.
func GenerateLogin(username string, rnd io.Reader) (Login, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return Login{}, fmt.Errorf("generate registry password: %w", err)
	}
	return Login{Username: username, Password: hex.EncodeToString(b)}, nil
}

// SecretData returns the login as the data of its Secret (keys username and password).
func (l Login) SecretData() map[string][]byte {
	return map[string][]byte{"username": []byte(l.Username), "password": []byte(l.Password)}
}

// NewRepoCredsSecret returns a repo-creds Secret as the chart installs it,
// as the tests build it.
func NewRepoCredsSecret(namespace, name, url, typ string, login Login) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name,
			Labels: map[string]string{argoSecretTypeLabel: argoRepoCreds},
		},
		Data: RepoCredsData(url, typ, login),
	}
}
