package manager

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// fakeAPIServer answers every request with its status and records the paths it received.
type fakeAPIServer struct {
	status int
	got    []string
}

func (s *fakeAPIServer) RoundTrip(req *http.Request) (*http.Response, error) {
	s.got = append(s.got, req.Method+" "+req.URL.Path)
	return &http.Response{StatusCode: s.status, Body: http.NoBody, Request: req}, nil
}

// TestLeaseFence: before the replica first leads, its writes pass; once it led, a write passes
// only while its last accepted Lease write was sent within the renew deadline, and a refused
// one never reaches the API server. Reads, the elector's own Lease writes and reviews always
// pass; a Lease write the API server refused renews nothing.
func TestLeaseFence(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const ns, name = "aicr-system", "aicr-operator.operator.aicr.run"
	f := newLeaseFence(ns, name, 10*time.Second, func() time.Time { return now })
	api := &fakeAPIServer{status: http.StatusOK}
	rt := f.wrap(api)
	lease := "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + name
	send := func(method, path string) error {
		resp, err := rt.RoundTrip(httptest.NewRequest(method, path, nil))
		if err == nil {
			require.NoError(t, resp.Body.Close())
		}
		return err
	}
	status := "/apis/operator.aicr.run/v1alpha1/runtimerollouts/r/status"

	require.NoError(t, send(http.MethodPost, "/api/v1/namespaces/"+ns+"/secrets"), "a write before the replica led")
	require.NoError(t, send(http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/"+ns+"/leases"), "the Lease created")
	now = now.Add(9 * time.Second)
	require.NoError(t, send(http.MethodPatch, status), "within the renew deadline")

	now = now.Add(time.Second)
	err := send(http.MethodPatch, status)
	require.ErrorIs(t, err, ErrLeaseNotHeld, "a write at the renew deadline")
	assert.ErrorContains(t, err, "PATCH "+status+": leader election Lease not renewed within the renew deadline")
	assert.ErrorContains(t, err, "(last renewal sent 10s ago, renew deadline 10s)")
	assert.ErrorIs(t, send(http.MethodDelete, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/a"), ErrLeaseNotHeld)
	assert.ErrorIs(t, send(http.MethodPut, "/api/v1/namespaces/"+ns+"/configmaps/c"), ErrLeaseNotHeld)
	assert.NoError(t, send(http.MethodGet, status), "a read")
	assert.NoError(t, send(http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews"), "a review stores nothing")
	assert.NoError(t, send(http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews"), "a review stores nothing")

	api.status = http.StatusConflict
	require.NoError(t, send(http.MethodPut, lease), "the elector's Lease write always goes out")
	assert.ErrorIs(t, send(http.MethodPatch, status), ErrLeaseNotHeld, "a refused renewal renews nothing")

	api.status = http.StatusOK
	require.NoError(t, send(http.MethodPut, lease+"/"))
	assert.NoError(t, send(http.MethodPatch, status), "renewed")
	assert.Equal(t, []string{
		"POST /api/v1/namespaces/" + ns + "/secrets", "POST /apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases",
		"PATCH " + status, "GET " + status, "POST /apis/authorization.k8s.io/v1/subjectaccessreviews",
		"POST /apis/authentication.k8s.io/v1/tokenreviews", "PUT " + lease, "PUT " + lease + "/", "PATCH " + status,
	}, api.got, "only what the fence let pass reached the API server")
	wrapper, isWrapper := rt.(utilnet.RoundTripperWrapper)
	require.True(t, isWrapper, "client-go's wrappers cancel a timed-out request through the fence")
	assert.Same(t, api, wrapper.WrappedRoundTripper())
}
