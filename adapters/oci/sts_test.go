package oci_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/ports"
)

const (
	pullRoleARN   = "arn:aws:iam::123456789012:role/aicr-argocd-pull"
	deniedRoleARN = "arn:aws:iam::123456789012:role/not-trusting-the-operator"
)

// awsDouble plays STS AssumeRole and ECR GetAuthorizationToken on one
// endpoint. STS lets the operator's own credentials (AKIDPOD) assume
// pullRoleARN only, issuing ASIAPULL credentials; ECR answers each identity
// with its own token: push-password for AKIDPOD, pull-password for ASIAPULL,
// as ECR tokens carry the requester's permissions.
type awsDouble struct {
	t   *testing.T
	URL string

	mu      sync.Mutex
	sts     []map[string]string // the form of every STS call
	ecrKeys []string            // the access key of every ECR call
}

func newAWSDouble(t *testing.T) *awsDouble {
	t.Helper()
	d := &awsDouble{t: t}
	srv := httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return d
}

func (d *awsDouble) serve(w http.ResponseWriter, r *http.Request) {
	m := sigV4Credential.FindStringSubmatch(r.Header.Get("Authorization"))
	if !assert.NotNil(d.t, m, "signed with Signature Version 4: %q", r.Header.Get("Authorization")) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	key, service := m[1], m[2]
	token := map[string]string{"AKIDPOD": "session", "ASIAPULL": "pull-session"}[key]
	assert.Equal(d.t, token, r.Header.Get("X-Amz-Security-Token"), "the session token of %s", key)
	switch service {
	case "sts":
		d.serveSTS(w, r, key)
	case "ecr":
		assert.Equal(d.t, "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken", r.Header.Get("X-Amz-Target"))
		d.mu.Lock()
		d.ecrKeys = append(d.ecrKeys, key)
		d.mu.Unlock()
		pass := map[string]string{"AKIDPOD": "push-password", "ASIAPULL": "pull-password"}[key]
		tok := base64.StdEncoding.EncodeToString([]byte("AWS:" + pass))
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = fmt.Fprintf(w, `{"authorizationData":[{"authorizationToken":%q,"expiresAt":%d}]}`,
			tok, t0.Add(12*time.Hour).Unix())
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (d *awsDouble) serveSTS(w http.ResponseWriter, r *http.Request, key string) {
	assert.NoError(d.t, r.ParseForm())
	form := map[string]string{}
	for k := range r.PostForm {
		form[k] = r.PostForm.Get(k)
	}
	d.mu.Lock()
	d.sts = append(d.sts, form)
	d.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	if key != "AKIDPOD" || form["RoleArn"] != pullRoleARN {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>` +
			`<Message>not authorized to perform: sts:AssumeRole</Message></Error></ErrorResponse>`))
		return
	}
	_, _ = w.Write([]byte(`<AssumeRoleResponse><AssumeRoleResult><Credentials>` +
		`<AccessKeyId>ASIAPULL</AccessKeyId><SecretAccessKey>pull-secret</SecretAccessKey>` +
		`<SessionToken>pull-session</SessionToken><Expiration>2100-01-01T00:00:00Z</Expiration>` +
		`</Credentials></AssumeRoleResult></AssumeRoleResponse>`))
}

func (d *awsDouble) stsCalls() []map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]map[string]string(nil), d.sts...)
}

func (d *awsDouble) ecrCalls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.ecrKeys...)
}

// readOnlyFor lets password pull only and records the password of every write.
type readOnlyFor struct {
	password string
	mu       sync.Mutex
	writers  map[string]bool
}

func (a *readOnlyFor) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pass, ok := r.BasicAuth()
		read := r.Method == http.MethodGet || r.Method == http.MethodHead
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Basic realm="ecr"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		case pass == a.password && !read:
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if !read {
			a.mu.Lock()
			a.writers[pass] = true
			a.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// pullTokens is the token source of Argo CD's token: role assumed from the operator's own
// identity, every call sent to url.
func pullTokens(t *testing.T, url, role string) awsauth.ECRAPI {
	t.Helper()
	pull, err := operatorIdentity(url).AssumeRole(role)
	require.NoError(t, err)
	return awsauth.NewECRAPI(pull)
}

// awsProvider wires the aws provider as the composition root does, over the
// double, with Argo CD's repo-creds Secret in a fake API server.
func awsProvider(t *testing.T, d *awsDouble, role string) (*oci.ECR, client.Client, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: t0}
	push := awsauth.NewECRAPI(operatorIdentity(d.URL))
	c := fake.NewClientBuilder().WithObjects(
		oci.NewRepoCredsSecret("argocd", "aicr-registry", "oci://"+ecrURL, "oci", oci.Login{Username: "AWS"})).Build()
	return oci.NewECR(push, pullTokens(t, d.URL, role), oci.ArgoRepoCreds{Client: c, Namespace: "argocd", Name: "aicr-registry"}, clock), c, clock
}

func repoCredsPassword(t *testing.T, c client.Client) string {
	t.Helper()
	var s corev1.Secret
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "argocd", Name: "aicr-registry"}, &s))
	return string(s.Data["password"])
}

func TestAWSProvider_ArgoCDGetsThePullRoleTokenTheOperatorPushesWithItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newAWSDouble(t)
	e, c, _ := awsProvider(t, d, pullRoleARN)
	access := &readOnlyFor{password: "pull-password", writers: map[string]bool{}}
	host := serveRegistry(t, access.wrap)
	reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry, Credentials: e})
	require.NoError(t, err)

	_, err = reg.PushEvidence(ctx, evidenceFixture())
	require.NoError(t, err)

	assert.Equal(t, "pull-password", repoCredsPassword(t, c),
		"the repo-creds Secret holds the token requested with the assumed role's credentials")
	assert.Equal(t, map[string]bool{"push-password": true}, access.writers, "the operator pushes with its own token")
	assert.ElementsMatch(t, []string{"AKIDPOD", "ASIAPULL"}, d.ecrCalls(), "one token per identity")
	require.Len(t, d.stsCalls(), 1)
	assert.Equal(t, map[string]string{
		"Action": "AssumeRole", "Version": "2011-06-15", "RoleArn": pullRoleARN,
		"RoleSessionName": "aicr-operator-argocd-pull", "DurationSeconds": "900",
	}, d.stsCalls()[0], "signed by the operator's own credentials, for the shortest session")
}

func TestAWSProvider_AssumeRoleDenialStallsUnauthorized(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newAWSDouble(t)
	e, c, _ := awsProvider(t, d, deniedRoleARN)
	host := serveRegistry(t, (&readOnlyFor{password: "pull-password", writers: map[string]bool{}}).wrap)
	reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry, Credentials: e})
	require.NoError(t, err)

	_, err = e.Refresh(ctx)
	require.ErrorIs(t, err, ports.ErrUnauthorized)
	assert.Contains(t, err.Error(), "Argo CD's ECR pull token")
	assert.Contains(t, err.Error(), deniedRoleARN)
	_, err = reg.PushEvidence(ctx, evidenceFixture())
	require.ErrorIs(t, err, ports.ErrUnauthorized, "the operator stalls although its own token works")
	assert.Empty(t, repoCredsPassword(t, c), "nothing is written")
	assert.Equal(t, []string{"AKIDPOD"}, d.ecrCalls(), "no ECR token for Argo CD without the pull role")
}

func TestAssumedRole_FailuresMapToSentinels(t *testing.T) {
	t.Parallel()
	d := newAWSDouble(t)
	t.Run("Unauthorized when STS denies the role", func(t *testing.T) {
		t.Parallel()
		_, err := pullTokens(t, d.URL, deniedRoleARN).Token(context.Background())
		require.ErrorIs(t, err, ports.ErrUnauthorized)
	})
	t.Run("RegistryCredentialsUnavailable without a role", func(t *testing.T) {
		t.Parallel()
		_, err := operatorIdentity(d.URL).AssumeRole("")
		require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
	})
	t.Run("RegistryCredentialsUnavailable without the operator's own identity", func(t *testing.T) {
		t.Parallel()
		none := awsauth.Identity{Config: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String(d.URL)}}
		pull, err := none.AssumeRole(pullRoleARN)
		require.NoError(t, err)
		_, err = awsauth.NewECRAPI(pull).Token(context.Background())
		require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
	})
	t.Run("an outage is none of the sentinels", func(t *testing.T) {
		t.Parallel()
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		t.Cleanup(down.Close)
		_, err := pullTokens(t, down.URL, pullRoleARN).Token(context.Background())
		require.Error(t, err)
		for _, s := range []error{ports.ErrUnauthorized, ports.ErrCredentialsUnavailable, ports.ErrCredentialsStale} {
			assert.NotErrorIs(t, err, s)
		}
	})
}
