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

	"github.com/nvidia/aicr-operator/adapters/oci/awsauth"
	"github.com/nvidia/aicr-operator/ports"
)

// fakeSTS plays STS AssumeRoleWithWebIdentity for the token "sa-token".
func fakeSTS(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		assert.Equal(t, "AssumeRoleWithWebIdentity", r.PostForm.Get("Action"))
		if r.PostForm.Get("WebIdentityToken") != "sa-token" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`<ErrorResponse><Error><Code>InvalidIdentityToken</Code></Error></ErrorResponse>`))
			return
		}
		_, _ = w.Write([]byte(`<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>` +
			`<AccessKeyId>AKIDPOD</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>session</SessionToken>` +
			`</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestIRSA_AssumesTheRoleForTheECRCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(good, []byte("sa-token"), 0o600))
	require.NoError(t, os.WriteFile(bad, []byte("expired"), 0o600))
	sts := fakeSTS(t)
	role := "arn:aws:iam::123456789012:role/aicr-operator"

	clock := &fakeClock{now: t0}
	api := awsauth.ECRAPI{
		Region: "eu-west-1", Endpoint: fakeECREndpoint(t, http.StatusOK, clock), Clock: clock,
		Credentials: awsauth.IRSA{RoleARN: role, TokenFile: good, Endpoint: sts},
	}
	tok, err := api.Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ecr-password", tok.Login.Password)

	_, err = awsauth.IRSA{RoleARN: role, TokenFile: bad, Endpoint: sts}.AWSCredentials(context.Background())
	require.ErrorIs(t, err, ports.ErrUnauthorized)
	_, err = awsauth.IRSA{}.AWSCredentials(context.Background())
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
}
