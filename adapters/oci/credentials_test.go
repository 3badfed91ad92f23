package oci_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// basicAuth demands user:pass on every request, as ECR and distribution do.
func basicAuth(user, pass string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// secrets is an in-memory SecretReader.
type secrets map[string]map[string][]byte

func (s secrets) ReadSecret(_ context.Context, name string) (map[string][]byte, error) {
	d, ok := s[name]
	if !ok {
		return nil, fmt.Errorf("get secret %s: %w", name, ports.ErrCredentialsUnavailable)
	}
	return d, nil
}

func dockerConfig(host, user, pass string) map[string][]byte {
	a := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	return map[string][]byte{oci.DockerConfigKey: fmt.Appendf(nil, `{"auths":{"https://%s":{"auth":%q}}}`, host, a)}
}

func TestStatic_DockerConfigSecretByName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets func(host string) secrets
		want    error
	}{
		{"credentials of the host authenticate", func(h string) secrets { return secrets{"regcred": dockerConfig(h, "admin", "s3cret")} }, nil},
		{"Unauthorized when the registry denies them", func(h string) secrets { return secrets{"regcred": dockerConfig(h, "admin", "wrong")} }, ports.ErrUnauthorized},
		{"RegistryCredentialsUnavailable without the Secret", func(string) secrets { return secrets{} }, ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsUnavailable without an entry for the host", func(string) secrets {
			return secrets{"regcred": dockerConfig("other.example.com", "admin", "s3cret")}
		}, ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsUnavailable without the docker config key", func(string) secrets {
			return secrets{"regcred": {"token": []byte("x")}}
		}, ports.ErrCredentialsUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := serveRegistry(t, basicAuth("admin", "s3cret"))
			reg, err := oci.New(oci.Options{
				Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry,
				Credentials: oci.Static{Secrets: tt.secrets(host), SecretName: "regcred"},
			})
			require.NoError(t, err)
			_, err = reg.PushEvidence(context.Background(), evidenceFixture())
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestInCluster_PushesWithItsOwnLoginFromItsSecret(t *testing.T) {
	t.Parallel()
	push, err := oci.GenerateLogin(oci.InClusterPushUsername, bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	assert.Equal(t, "aicr-push", push.Username)
	assert.Len(t, push.Password, 64)

	host := serveRegistry(t, basicAuth(push.Username, push.Password))
	reg, err := oci.New(oci.Options{
		Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry,
		Credentials: oci.InCluster{Secrets: secrets{"aicr-registry-push": push.SecretData()}, SecretName: "aicr-registry-push"},
	})
	require.NoError(t, err)
	d, err := reg.PushEvidence(context.Background(), evidenceFixture())
	require.NoError(t, err)
	_, err = reg.PullEvidence(context.Background(), d)
	require.NoError(t, err)
}

func TestInCluster_PushSecretFailuresMapToSentinels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets secrets
		want    error
	}{
		{"RegistryCredentialsUnavailable without the push Secret", secrets{}, ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsUnavailable without a password", secrets{"aicr-registry-push": {"username": []byte("aicr-push")}},
			ports.ErrCredentialsUnavailable},
		{"RegistryCredentialsUnavailable when only Argo CD's repo-creds Secret exists", secrets{
			"aicr-registry": oci.RepoCredsData("oci://registry.aicr:5000/aicr", "oci", oci.Login{Username: oci.InClusterPullUsername, Password: "p"}),
		}, ports.ErrCredentialsUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := oci.InCluster{Secrets: tt.secrets, SecretName: "aicr-registry-push"}.Credential(context.Background(), "registry.aicr:5000")
			require.ErrorIs(t, err, tt.want)
		})
	}
}

// flaky fails the first n requests with 503, as a registry under maintenance does.
func flaky(n int64) func(http.Handler) http.Handler {
	var seen atomic.Int64
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if seen.Add(1) <= n {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestTransientOutage_RetriesWithBackoff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("a short outage is retried away", func(t *testing.T) {
		t.Parallel()
		host := serveRegistry(t, flaky(3))
		reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry})
		require.NoError(t, err)
		_, err = reg.PushEvidence(ctx, evidenceFixture())
		require.NoError(t, err)
	})
	t.Run("a long outage is a transient error, none of the sentinels", func(t *testing.T) {
		t.Parallel()
		host := serveRegistry(t, flaky(1000))
		reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry})
		require.NoError(t, err)
		_, err = reg.PushEvidence(ctx, evidenceFixture())
		require.Error(t, err)
		for _, s := range []error{ports.ErrUnauthorized, ports.ErrCredentialsStale, ports.ErrCredentialsUnavailable, ports.ErrArtifactNotFound} {
			assert.False(t, errors.Is(err, s), "%v must not be %v", err, s)
		}
	})
	t.Run("a cancelled context stops the backoff", func(t *testing.T) {
		t.Parallel()
		host := serveRegistry(t, flaky(1000))
		reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true})
		require.NoError(t, err)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = reg.Resolve(cctx, host+"/aicr/charts/x:1")
		require.ErrorIs(t, err, context.Canceled)
	})
}
