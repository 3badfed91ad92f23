package oci_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/ports"
)

const operatorRoleARN = "arn:aws:iam::123456789012:role/aicr-operator"

var euWest1 = awsauth.Registry{Host: "123456789012.dkr.ecr.eu-west-1.amazonaws.com", Account: "123456789012", Region: "eu-west-1"}

// awsEnv clears the AWS environment of the SDK's default credential chain (no keys, no
// shared files, no instance metadata, one attempt per call), sends every AWS call to
// endpoint and then sets env. Tests using it cannot run in parallel.
func awsEnv(t *testing.T, endpoint string, env map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_MAX_ATTEMPTS": "1", "AWS_ENDPOINT_URL": endpoint,
		// The web identity provider is built before AWS_ENDPOINT_URL is resolved; it reads its own.
		"AWS_ENDPOINT_URL_STS": endpoint,
	} {
		t.Setenv(k, v)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// tokenFile writes a token into a file of a fresh directory.
func tokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(p, []byte(token), 0o600))
	return p
}

// fakePodIdentityAgent plays the EKS Pod Identity agent for the token "pod-token",
// handing out the AKIDPOD credentials.
func fakePodIdentityAgent(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "pod-token" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(`{"AccessKeyId":"AKIDPOD","SecretAccessKey":"secret","Token":"session",` +
			`"Expiration":"2100-01-01T00:00:00Z"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/credentials"
}

// fakeSTSAndECR plays STS AssumeRoleWithWebIdentity for the token "sa-token" (issuing the
// AKIDPOD credentials) and, on the same endpoint, ECR.
func fakeSTSAndECR(t *testing.T, clock *fakeClock) string {
	t.Helper()
	ecr := fakeECRAPI(t, http.StatusOK, "", clock)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != "" {
			ecr(w, r)
			return
		}
		require.NoError(t, r.ParseForm())
		assert.Equal(t, "AssumeRoleWithWebIdentity", r.PostForm.Get("Action"))
		assert.Equal(t, operatorRoleARN, r.PostForm.Get("RoleArn"))
		w.Header().Set("Content-Type", "text/xml")
		if r.PostForm.Get("WebIdentityToken") != "sa-token" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>` +
				`<Message>expired</Message></Error></ErrorResponse>`))
			return
		}
		_, _ = w.Write([]byte(`<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>` +
			`<AccessKeyId>AKIDPOD</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>session</SessionToken>` +
			`<Expiration>2100-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult>` +
			`</AssumeRoleWithWebIdentityResponse>`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLoadIdentity_PodIdentity runs the SDK's default chain with the variables EKS Pod
// Identity injects, the agent played by a local server.
func TestLoadIdentity_PodIdentity(t *testing.T) {
	clock := &fakeClock{now: t0}
	awsEnv(t, fakeECREndpoint(t, http.StatusOK, "", clock), map[string]string{
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":     fakePodIdentityAgent(t),
		"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile(t, "pod-token"),
	})
	id := awsauth.LoadIdentity(context.Background(), euWest1)
	assert.Empty(t, id.WebIdentityRole)
	tok, err := awsauth.NewECRAPI(id).Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ecr-password", tok.Login.Password)
}

// TestLoadIdentity_IRSA runs the SDK's default chain with the variables IRSA injects: the
// role is assumed with the web identity token for the ECR call, a refused token is
// Unauthorized.
func TestLoadIdentity_IRSA(t *testing.T) {
	clock := &fakeClock{now: t0}
	endpoint := fakeSTSAndECR(t, clock)
	awsEnv(t, endpoint, map[string]string{"AWS_ROLE_ARN": operatorRoleARN, "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile(t, "sa-token")})
	id := awsauth.LoadIdentity(context.Background(), euWest1)
	assert.Equal(t, operatorRoleARN, id.WebIdentityRole, "the pull role must differ from it")
	tok, err := awsauth.NewECRAPI(id).Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ecr-password", tok.Login.Password)

	awsEnv(t, endpoint, map[string]string{"AWS_ROLE_ARN": operatorRoleARN, "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile(t, "expired")})
	_, err = awsauth.NewECRAPI(awsauth.LoadIdentity(context.Background(), euWest1)).Token(context.Background())
	require.ErrorIs(t, err, ports.ErrUnauthorized)
}

// TestLoadIdentity_NoneConfigured: without Pod Identity, IRSA or any other identity the
// calls fail with ErrCredentialsUnavailable.
func TestLoadIdentity_NoneConfigured(t *testing.T) {
	awsEnv(t, "http://127.0.0.1:1", nil)
	_, err := awsauth.NewECRAPI(awsauth.LoadIdentity(context.Background(), euWest1)).Token(context.Background())
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)

	awsEnv(t, "http://127.0.0.1:1", map[string]string{"AWS_ROLE_ARN": operatorRoleARN,
		"AWS_WEB_IDENTITY_TOKEN_FILE": filepath.Join(t.TempDir(), "missing")})
	_, err = awsauth.NewECRAPI(awsauth.LoadIdentity(context.Background(), euWest1)).Token(context.Background())
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable, "the projected token is missing")
}
