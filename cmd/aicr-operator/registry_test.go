package main

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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

const (
	testPullRole     = "arn:aws:iam::123456789012:role/aicr-argocd-pull"
	testOperatorRole = "arn:aws:iam::123456789012:role/aicr-operator"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// operatorIdentity is the operator's own AWS identity (what Pod Identity or IRSA returns), its
// calls sent to url without retries.
func operatorIdentity(url string) awsauth.Identity {
	return awsauth.Identity{Config: aws.Config{
		Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDOPERATOR", "secret", ""),
		BaseEndpoint: aws.String(url), Retryer: func() aws.Retryer { return aws.NopRetryer{} },
	}}
}

var accessKey = regexp.MustCompile(`Credential=([^/]+)/\d{8}/eu-west-1/([a-z]+)/`)

// awsDouble plays STS (the operator may assume testPullRole only, getting ASIAPULL) and ECR
// (each identity gets a token named after it).
func awsDouble(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := accessKey.FindStringSubmatch(r.Header.Get("Authorization"))
		if m == nil {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		switch m[2] {
		case "sts":
			if m[1] != "AKIDOPERATOR" || r.FormValue("RoleArn") != testPullRole ||
				r.FormValue("RoleSessionName") != "aicr-operator-argocd-pull" {
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`<ErrorResponse><Error><Code>AccessDenied</Code></Error></ErrorResponse>`))
				return
			}
			_, _ = w.Write([]byte(`<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAPULL</AccessKeyId>` +
				`<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken><Expiration>2100-01-01T00:00:00Z</Expiration>` +
				`</Credentials></AssumeRoleResult></AssumeRoleResponse>`))
		case "ecr":
			tok := base64.StdEncoding.EncodeToString([]byte("AWS:token-of-" + m[1]))
			_, _ = fmt.Fprintf(w, `{"authorizationData":[{"authorizationToken":%q,"expiresAt":4102444800}]}`, tok)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestECRTokenSources_ArgoCDTokenIsRequestedAsThePullRole(t *testing.T) {
	t.Parallel()
	url := awsDouble(t)
	cfg := app.Config{RegistryAWSPullRoleARN: testPullRole}
	push, pull, err := ecrTokenSources(cfg, operatorIdentity(url))
	require.NoError(t, err)

	tok, err := push.Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "token-of-AKIDOPERATOR", tok.Login.Password, "the operator's pushes use its own identity")
	tok, err = pull.Token(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "token-of-ASIAPULL", tok.Login.Password, "Argo CD's token is requested with the assumed pull role")

	cfg.RegistryAWSPullRoleARN = "arn:aws:iam::123456789012:role/other"
	_, pull, err = ecrTokenSources(cfg, operatorIdentity(url))
	require.NoError(t, err)
	_, err = pull.Token(context.Background())
	require.ErrorIs(t, err, ports.ErrUnauthorized, "an AssumeRole denial")
}

func TestECRTokenSources_RefusesAMissingOrSharedPullRole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		pullRole string
		identity awsauth.Identity
		wantMsg  string
	}{
		{"no pull role", "", operatorIdentity(""), "needs --registry-aws-pull-role-arn"},
		{"the operator's own IRSA role", testOperatorRole, awsauth.Identity{WebIdentityRole: testOperatorRole}, "is the operator's own role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ecrTokenSources(app.Config{RegistryAWSPullRoleARN: tt.pullRole}, tt.identity)
			require.ErrorIs(t, err, app.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestRegistryOptions_OperatorReadsItsOwnSecretByName(t *testing.T) {
	t.Parallel()
	secret := func(ns, name string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	}
	pull := oci.Login{Username: oci.InClusterPullUsername, Password: "pull"}
	reader := fake.NewClientBuilder().WithObjects(
		secret("aicr-system", "aicr-registry-push", loginData(oci.InClusterPushUsername, "push")),
		secret("argocd", "aicr-registry", oci.RepoCredsData("oci://registry.aicr:5000/aicr", "oci", pull)),
		secret("aicr-system", "aicr-registry-auth", map[string][]byte{oci.DockerConfigKey: []byte(
			`{"auths":{"registry.aicr:5000":{"username":"admin","password":"s3cret"}}}`)}),
	).Build()
	base := app.Config{
		OperatorNamespace: "aicr-system", EngineNamespace: "argocd", RegistryRepoCredsSecret: "aicr-registry",
		RegistryRepository: "oci://registry.aicr:5000/aicr", RegistryPushSecret: "aicr-registry-push",
	}
	noECR := func() (*oci.ECR, error) { return nil, errors.New("not aws") }

	tests := []struct {
		name      string
		cfg       func(app.Config) app.Config
		wantUser  string
		wantErr   error
		plainHTTP bool
	}{
		{name: "inCluster pushes with the push Secret of the operator namespace", plainHTTP: true, wantUser: "aicr-push",
			cfg: func(c app.Config) app.Config { c.RegistryAuthProvider = app.RegistryAuthInCluster; return c }},
		{name: "inCluster never falls back to Argo CD's repo-creds login", plainHTTP: true, wantErr: ports.ErrCredentialsUnavailable,
			cfg: func(c app.Config) app.Config {
				c.RegistryAuthProvider, c.RegistryPushSecret = app.RegistryAuthInCluster, "missing"
				return c
			}},
		{name: "static pushes with the docker config Secret of the operator namespace", wantUser: "admin",
			cfg: func(c app.Config) app.Config {
				c.RegistryAuthProvider, c.RegistryStaticSecret = app.RegistryAuthStatic, "aicr-registry-auth"
				return c
			}},
		{name: "an unknown provider is refused", wantErr: app.ErrInvalidConfig,
			cfg: func(c app.Config) app.Config { c.RegistryAuthProvider = "gcp"; return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts, err := registryOptions(tt.cfg(base), reader, noECR)
			if errors.Is(tt.wantErr, app.ErrInvalidConfig) {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.plainHTTP, opts.PlainHTTP)
			cred, err := opts.Credentials.Credential(context.Background(), "registry.aicr:5000")
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantUser, cred.Username)
		})
	}
}

// TestRegistryOptions_UpstreamLoginsAreReadFromTheOperatorNamespace: the prefixes of
// --upstream-credentials reach the adapter, whose Secrets are read by name in the operator
// namespace only.
func TestRegistryOptions_UpstreamLoginsAreReadFromTheOperatorNamespace(t *testing.T) {
	t.Parallel()
	login := func(ns, pass string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ngc-helm"}, Type: corev1.SecretTypeBasicAuth,
			Data: loginData("$oauthtoken", pass)}
	}
	reader := fake.NewClientBuilder().WithObjects(login("aicr-system", "ngc-api-key"), login("argocd", "argo-key")).Build()
	cfg := app.Config{
		OperatorNamespace: "aicr-system", RegistryRepository: "oci://registry.example.com/aicr",
		RegistryAuthProvider: app.RegistryAuthStatic, RegistryStaticSecret: "aicr-registry-auth",
		UpstreamCredentials: []app.UpstreamCredential{{Repository: "https://helm.ngc.nvidia.com/nvidia", Secret: "ngc-helm"}},
	}
	opts, err := registryOptions(cfg, reader, func() (*oci.ECR, error) { return nil, errors.New("not aws") })
	require.NoError(t, err)
	assert.Equal(t, []oci.UpstreamCredential{{Repository: "https://helm.ngc.nvidia.com/nvidia", Secret: "ngc-helm"}}, opts.UpstreamCredentials)
	got, err := opts.UpstreamLogins.ReadLogin(context.Background(), "ngc-helm")
	require.NoError(t, err)
	assert.Equal(t, "ngc-api-key", got.Password)
}

// loginData is a registry login as the data of its Secret (keys username and password).
func loginData(username, password string) map[string][]byte {
	return map[string][]byte{"username": []byte(username), "password": []byte(password)}
}
