package manager_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestSecureMetricsNeedAnAuthorizedToken proves OPS-2's metrics endpoint is not open: served
// over HTTPS, it refuses a request without a token (401) and the token of an identity without
// get on /metrics (403), and serves the token of an identity bound to a metrics-reader role.
// The manager runs as the operator with only the grants the chart's rbac-metrics.yaml gives it
// for this (create tokenreviews and subjectaccessreviews).
func TestSecureMetricsNeedAnAuthorizedToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := runs.Add(1)
	ns := fmt.Sprintf("scrapers-%d", run)
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	grantMetricsAuth(ctx, t, admin, run)
	readerToken := serviceAccountToken(ctx, t, admin, ns, "prometheus")
	bindMetricsReader(ctx, t, admin, run, ns, "prometheus")
	strangerToken := serviceAccountToken(ctx, t, admin, ns, "stranger")
	// The endpoint caches TokenReview and SubjectAccessReview answers, denials included, so
	// every grant must be in effect before the first request.
	cs, err := kubernetes.NewForConfig(cp.Config)
	require.NoError(t, err)
	operatorGroups := []string{"system:serviceaccounts", "system:serviceaccounts:aicr-system"}
	for _, sar := range []authorizationv1.SubjectAccessReviewSpec{
		{User: operatorUser, Groups: operatorGroups, ResourceAttributes: &authorizationv1.ResourceAttributes{
			Group: "authentication.k8s.io", Resource: "tokenreviews", Verb: "create"}},
		{User: operatorUser, Groups: operatorGroups, ResourceAttributes: &authorizationv1.ResourceAttributes{
			Group: "authorization.k8s.io", Resource: "subjectaccessreviews", Verb: "create"}},
		{User: "system:serviceaccount:" + ns + ":prometheus", NonResourceAttributes: &authorizationv1.NonResourceAttributes{
			Path: "/metrics", Verb: "get"}},
	} {
		require.Eventually(t, func() bool {
			res, sarErr := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx,
				&authorizationv1.SubjectAccessReview{Spec: sar}, metav1.CreateOptions{})
			return sarErr == nil && res.Status.Allowed
		}, 30*time.Second, 50*time.Millisecond, "grant in effect: %+v", sar)
	}

	addr := freeAddress(t)
	mgr, err := manager.New(cp.Impersonate(operatorUser, operatorGroups...), manager.Options{
		OperatorNamespace: fmt.Sprintf("aicr-system-metrics-%d", run), MetricsBindAddress: addr, MetricsSecure: true,
		HealthProbeBindAddress: "0",
		LeaseDuration:          15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	url := "https://" + addr + "/metrics"
	httpClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		// The endpoint's certificate is self-signed, as controller-runtime generates it.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	require.Eventually(t, func() bool {
		_, err := scrape(httpClient, url, "")
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "the metrics endpoint serves HTTPS")

	t.Run("OPS-2 plain HTTP is not served", func(t *testing.T) {
		res, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/metrics")
		if err == nil {
			defer func() { _ = res.Body.Close() }()
			assert.Equal(t, http.StatusBadRequest, res.StatusCode, "an HTTPS server answers plain HTTP with 400")
		}
	})
	t.Run("OPS-2 a request without a token is refused 401", func(t *testing.T) {
		status, err := scrape(httpClient, url, "")
		require.NoError(t, err)
		assert.Equal(t, http.StatusUnauthorized, status.code)
		assert.NotContains(t, status.body, "controller_runtime")
	})
	t.Run("OPS-2 a token the API server rejects is refused", func(t *testing.T) {
		status, err := scrape(httpClient, url, "not-a-token")
		require.NoError(t, err)
		assert.Equal(t, http.StatusUnauthorized, status.code, "the TokenReview does not authenticate it")
		assert.NotContains(t, status.body, "controller_runtime")
	})
	t.Run("OPS-2 a token without get on /metrics is refused 403", func(t *testing.T) {
		status, err := scrape(httpClient, url, strangerToken)
		require.NoError(t, err)
		assert.Equal(t, http.StatusForbidden, status.code)
		assert.NotContains(t, status.body, "controller_runtime")
	})
	t.Run("OPS-2 a metrics reader's token is served the metrics", func(t *testing.T) {
		status, err := scrape(httpClient, url, readerToken)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status.code, status.body)
		assert.Contains(t, status.body, "controller_runtime_", "controller-runtime's metrics")
	})

	cancel()
	require.NoError(t, <-done)
}

// TestInsecureMetricsServePlainHTTP: --metrics-secure=false keeps the former plain HTTP
// endpoint, without authentication, for where nothing untrusted reaches the port (OPS-2).
func TestInsecureMetricsServePlainHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := freeAddress(t)
	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: fmt.Sprintf("aicr-system-plain-%d", runs.Add(1)), MetricsBindAddress: addr,
		HealthProbeBindAddress: "0",
		LeaseDuration:          15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	httpClient := &http.Client{Timeout: 10 * time.Second}
	var last scrapeResult
	require.Eventually(t, func() bool {
		last, err = scrape(httpClient, "http://"+addr+"/metrics", "")
		return err == nil && last.code == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "plain HTTP without a token")
	assert.Contains(t, last.body, "controller_runtime_")
	cancel()
	require.NoError(t, <-done)
}

type scrapeResult struct {
	code int
	body string
}

// scrape GETs url with token as bearer token (none when empty).
func scrape(c *http.Client, url, token string) (scrapeResult, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return scrapeResult{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.Do(req)
	if err != nil {
		return scrapeResult{}, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	return scrapeResult{code: res.StatusCode, body: string(body)}, err
}

// freeAddress returns a loopback address with a port nothing listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// grantMetricsAuth gives operatorUser what the chart's aicr-operator-metrics-auth ClusterRole
// gives the operator: create tokenreviews and subjectaccessreviews.
func grantMetricsAuth(ctx context.Context, t *testing.T, admin client.Client, run int64) {
	t.Helper()
	name := fmt.Sprintf("metrics-auth-%d", run)
	require.NoError(t, admin.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}}))
	require.NoError(t, admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: operatorUser}},
	}))
}

// bindMetricsReader binds the ServiceAccount ns/name to a role like the chart's
// aicr-operator-metrics-reader: get on the /metrics non-resource URL.
func bindMetricsReader(ctx context.Context, t *testing.T, admin client.Client, run int64, ns, name string) {
	t.Helper()
	role := fmt.Sprintf("metrics-reader-%d", run)
	require.NoError(t, admin.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: []rbacv1.PolicyRule{
		{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
	}}))
	require.NoError(t, admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
	}))
}

// serviceAccountToken creates the ServiceAccount ns/name and returns a token the API server
// issued for it (TokenRequest).
func serviceAccountToken(ctx context.Context, t *testing.T, admin client.Client, ns, name string) string {
	t.Helper()
	require.NoError(t, admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}))
	cs, err := kubernetes.NewForConfig(cp.Config)
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(tr.Status.Token))
	return tr.Status.Token
}
