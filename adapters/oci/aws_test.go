package oci_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/adapters/oci/awsauth"
	"github.com/nvidia/aicr-operator/ports"
)

// fakeECREndpoint plays ECR's GetAuthorizationToken API; status != 200 answers with an error.
func fakeECREndpoint(t *testing.T, status int, clock *fakeClock) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken", r.Header.Get("X-Amz-Target"))
		assert.True(t, strings.HasPrefix(r.Header.Get("Authorization"),
			"AWS4-HMAC-SHA256 Credential=AKIDPOD/20261129/eu-west-1/ecr/aws4_request, SignedHeaders="), r.Header.Get("Authorization"))
		assert.Equal(t, "session", r.Header.Get("X-Amz-Security-Token"))
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"__type":"AccessDeniedException"}`))
			return
		}
		tok := base64.StdEncoding.EncodeToString([]byte("AWS:ecr-password"))
		_, _ = fmt.Fprintf(w, `{"authorizationData":[{"authorizationToken":%q,"expiresAt":%d,"proxyEndpoint":"https://x"}]}`,
			tok, clock.Now().Add(12*time.Hour).Unix())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakePodIdentity plays the EKS Pod Identity agent.
func fakePodIdentity(t *testing.T) awsauth.PodIdentity {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "eks-pod-identity-token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("pod-token\n"), 0o600))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "pod-token" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(`{"AccessKeyId":"AKIDPOD","SecretAccessKey":"secret","Token":"session","Expiration":"2026-11-29T18:00:00Z"}`))
	}))
	t.Cleanup(srv.Close)
	return awsauth.PodIdentity{URI: srv.URL + "/v1/credentials", TokenFile: tokenFile}
}

func TestECRAPI_FakeEndpointDrivesTheRepoCredsWrite(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: t0}
	api := awsauth.ECRAPI{Region: "eu-west-1", Endpoint: fakeECREndpoint(t, http.StatusOK, clock), Credentials: fakePodIdentity(t), Clock: clock}

	tok, err := api.Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, oci.Login{Username: "AWS", Password: "ecr-password"}, tok.Login)
	assert.Equal(t, t0.Add(12*time.Hour), tok.ExpiresAt)

	rec := &recorder{}
	_, err = oci.NewECR(&fakeECR{clock: clock, prefix: "push-"}, api, rec, clock).Refresh(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []oci.Login{{Username: "AWS", Password: "ecr-password"}}, rec.writes)
}

func TestECRAPI_FailuresMapToSentinels(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: t0}
	denied := awsauth.ECRAPI{Region: "eu-west-1", Endpoint: fakeECREndpoint(t, http.StatusBadRequest, clock), Credentials: fakePodIdentity(t), Clock: clock}
	_, err := denied.Token(context.Background())
	require.ErrorIs(t, err, ports.ErrUnauthorized)

	down := awsauth.ECRAPI{Region: "eu-west-1", Endpoint: fakeECREndpoint(t, http.StatusServiceUnavailable, clock), Credentials: fakePodIdentity(t), Clock: clock}
	_, err = down.Token(context.Background())
	require.Error(t, err)
	assert.NotErrorIs(t, err, ports.ErrUnauthorized)
	assert.NotErrorIs(t, err, ports.ErrCredentialsUnavailable)

	noIdentity := awsauth.ECRAPI{Region: "eu-west-1", Credentials: awsauth.PodIdentity{}, Clock: clock}
	_, err = noIdentity.Token(context.Background())
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
}
