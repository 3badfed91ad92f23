package oci_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/ports"
)

// sigV4Credential matches the Authorization header the SDK signs with: access key and service.
var sigV4Credential = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/\d{8}/eu-west-1/([a-z]+)/aws4_request, SignedHeaders=`)

// operatorIdentity is the operator's own identity (AKIDPOD, session token "session", what
// Pod Identity returns) with every AWS call sent to url, without retries.
func operatorIdentity(url string) awsauth.Identity {
	return awsauth.Identity{Config: aws.Config{
		Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDPOD", "secret", "session"),
		BaseEndpoint: aws.String(url), Retryer: func() aws.Retryer { return aws.NopRetryer{} },
	}}
}

// fakeECREndpoint serves fakeECR at a local URL.
func fakeECREndpoint(t *testing.T, status int, code string, clock *fakeClock) string {
	t.Helper()
	srv := httptest.NewServer(fakeECRAPI(t, status, code, clock))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeECRAPI plays ECR's GetAuthorizationToken API for AKIDPOD; a status other than 200
// answers with that status and the AWS API error code instead.
func fakeECRAPI(t *testing.T, status int, code string, clock *fakeClock) http.HandlerFunc {
	t.Helper()
	return func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken", r.Header.Get("X-Amz-Target"))
		m := sigV4Credential.FindStringSubmatch(r.Header.Get("Authorization"))
		if assert.NotNil(t, m, r.Header.Get("Authorization")) {
			assert.Equal(t, []string{"AKIDPOD", "ecr"}, m[1:])
		}
		assert.Equal(t, "session", r.Header.Get("X-Amz-Security-Token"))
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if status != http.StatusOK {
			w.WriteHeader(status)
			if code != "" {
				_, _ = fmt.Fprintf(w, `{"__type":%q,"message":"refused"}`, code)
			}
			return
		}
		tok := base64.StdEncoding.EncodeToString([]byte("AWS:ecr-password"))
		_, _ = fmt.Fprintf(w, `{"authorizationData":[{"authorizationToken":%q,"expiresAt":%d,"proxyEndpoint":"https://x"}]}`,
			tok, clock.Now().Add(12*time.Hour).Unix())
	}
}

func TestECRAPI_FakeEndpointDrivesTheRepoCredsWrite(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: t0}
	api := awsauth.NewECRAPI(operatorIdentity(fakeECREndpoint(t, http.StatusOK, "", clock)))

	tok, err := api.Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, oci.Login{Username: "AWS", Password: "ecr-password"}, tok.Login)
	assert.Equal(t, t0.Add(12*time.Hour), tok.ExpiresAt)

	rec := &recorder{}
	_, err = oci.NewECR(&fakeECR{clock: clock, prefix: "push-"}, api, rec, clock).Refresh(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []oci.Login{{Username: "AWS", Password: "ecr-password"}}, rec.writes)
}

// TestECRAPI_FailuresMapToSentinels maps ECR's API error codes (not its message bodies) to
// the ports' sentinels; throttling and outages are none of them.
func TestECRAPI_FailuresMapToSentinels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		code   string
		want   error // nil: transient
	}{
		{"Unauthorized when ECR denies the identity", http.StatusBadRequest, "AccessDeniedException", ports.ErrUnauthorized},
		{"Unauthorized for an unknown access key", http.StatusBadRequest, "UnrecognizedClientException", ports.ErrUnauthorized},
		{"Unauthorized for an expired session", http.StatusBadRequest, "ExpiredTokenException", ports.ErrUnauthorized},
		{"Unauthorized for a refused signature", http.StatusBadRequest, "InvalidSignatureException", ports.ErrUnauthorized},
		{"Unauthorized for a 403 without a code", http.StatusForbidden, "", ports.ErrUnauthorized},
		{"ArtifactNotFound for a missing repository", http.StatusBadRequest, "RepositoryNotFoundException", ports.ErrArtifactNotFound},
		{"transient when throttled", http.StatusBadRequest, "ThrottlingException", nil},
		{"transient when ECR fails", http.StatusInternalServerError, "ServerException", nil},
		{"transient during an outage", http.StatusServiceUnavailable, "", nil},
	}
	sentinels := []error{ports.ErrUnauthorized, ports.ErrCredentialsUnavailable, ports.ErrCredentialsStale, ports.ErrArtifactNotFound}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{now: t0}
			_, err := awsauth.NewECRAPI(operatorIdentity(fakeECREndpoint(t, tt.status, tt.code, clock))).Token(context.Background())
			require.Error(t, err)
			for _, s := range sentinels {
				assert.Equal(t, s == tt.want, errors.Is(err, s), "%v wraps %v", err, s)
			}
		})
	}
	t.Run("CredentialsUnavailable without an identity", func(t *testing.T) {
		t.Parallel()
		_, err := awsauth.NewECRAPI(awsauth.Identity{Config: aws.Config{Region: "eu-west-1"}}).Token(context.Background())
		require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
	})
}
