package oci_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// hang holds every request it wraps, once hold was called, until release: a server that
// accepted the connection but never answers. Each held request is reported on arrived.
type hang struct {
	mu      sync.Mutex
	gate    chan struct{} // nil: requests pass
	arrived chan struct{}
}

func newHang() *hang { return &hang{arrived: make(chan struct{}, 16)} }

func (h *hang) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gate = make(chan struct{})
}

func (h *hang) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.gate)
	h.gate = nil
}

func (h *hang) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		gate := h.gate
		h.mu.Unlock()
		if gate != nil {
			h.arrived <- struct{}{}
			select {
			case <-gate:
			case <-r.Context().Done(): // the client gave up
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isTimeout reports whether err is a network timeout (a client's timeout fired).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestHungRegistryTimesOutAndRecovers: a registry that never answers fails the call with a
// timeout of the registry client, without any deadline on the caller's context; the error is
// transient (no stall: the stage retries it), and once the registry answers again the next
// attempt succeeds.
func TestHungRegistryTimesOutAndRecovers(t *testing.T) {
	t.Parallel()
	h := newHang()
	host := serveRegistry(t, h.wrap)
	reg, err := oci.New(oci.Options{Registry: "oci://" + host + "/aicr", PlainHTTP: true, Retry: fastRetry,
		HTTPClient: &http.Client{Timeout: 200 * time.Millisecond}})
	require.NoError(t, err)

	h.hold()
	_, err = reg.PushEvidence(context.Background(), evidenceFixture())
	require.Error(t, err)
	assert.True(t, isTimeout(err), "the client's timeout ended the call: %v", err)
	assert.Nil(t, domain.RegistryStall("push evidence", err), "a timeout is transient: retried, not a stall")

	h.release()
	_, err = reg.PushEvidence(context.Background(), evidenceFixture())
	require.NoError(t, err, "the next attempt succeeds")
}

// hungAWS serves the STS and ECR double behind a hang; identities built by identity send
// every call there through the operator's AWS HTTP client, with a short timeout.
func hungAWS(t *testing.T) (*hang, func() awsauth.Identity) {
	t.Helper()
	d, h := &awsDouble{t: t}, newHang()
	srv := httptest.NewServer(h.wrap(http.HandlerFunc(d.serve)))
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return h, func() awsauth.Identity {
		id := operatorIdentity(srv.URL)
		id.Config.HTTPClient = awsauth.NewHTTPClient(time.Second)
		return id
	}
}

// TestHungAWSEndpointNeverBlocksTheCachedToken: while the STS/ECR endpoint hangs, a refresh
// fails with the AWS client's timeout as a transient error (a valid token is still in place),
// a concurrent reader gets the cached token at once instead of waiting on the refresher, and
// once the endpoint answers again the next refresh succeeds.
func TestHungAWSEndpointNeverBlocksTheCachedToken(t *testing.T) {
	t.Parallel()
	h, identity := hungAWS(t)
	pull, err := identity().AssumeRole(pullRoleARN)
	require.NoError(t, err)
	clock := &fakeClock{now: t0}
	rec := &recorder{}
	e := oci.NewECR(awsauth.NewECRAPI(identity()), awsauth.NewECRAPI(pull), rec, clock)
	ctx := context.Background()
	cred, err := e.Credential(ctx, ecrURL)
	require.NoError(t, err)
	require.Equal(t, "push-password", cred.Password)

	h.hold()
	clock.Add(oci.ECRRefreshInterval)
	refreshed := make(chan error, 1)
	go func() {
		_, rerr := e.Refresh(ctx) // what Run does when its timer fires
		refreshed <- rerr
	}()
	<-h.arrived // both tokens' fetches are in flight, held by the endpoint
	<-h.arrived
	cred, err = e.Credential(ctx, ecrURL)
	require.NoError(t, err, "the cached token is served while its refresh hangs")
	assert.Equal(t, "push-password", cred.Password)
	select {
	case rerr := <-refreshed:
		t.Fatalf("the refresh ended before the reader was served (%v): the reader did not run concurrently", rerr)
	default:
	}

	err = <-refreshed
	require.Error(t, err)
	assert.True(t, isTimeout(err), "the AWS client's timeout ended the refresh: %v", err)
	for _, sentinel := range []error{ports.ErrCredentialsUnavailable, ports.ErrCredentialsStale, ports.ErrUnauthorized} {
		assert.NotErrorIs(t, err, sentinel, "transient while the tokens are valid")
	}
	assert.Nil(t, domain.RegistryStall("refresh", err))

	h.release()
	clock.Add(oci.ECRRetryMin) // the failed refresh's backoff
	_, err = e.Refresh(ctx)
	require.NoError(t, err, "the next attempt succeeds")
	assert.Equal(t, 2, rec.count(), "Argo CD's token fetched and written again")
}

// TestHungAWSEndpointWithoutATokenStallsThenRecovers: at start, with no token yet, a hung
// endpoint ends the caller's Credential with the client's timeout as
// RegistryCredentialsUnavailable (the stage stalls with the cause), and a reader arriving
// while that fetch is in flight waits for it only until its own context ends, never on a lock;
// after the endpoint answers again the next attempt succeeds.
func TestHungAWSEndpointWithoutATokenStallsThenRecovers(t *testing.T) {
	t.Parallel()
	h, identity := hungAWS(t)
	pull, err := identity().AssumeRole(pullRoleARN)
	require.NoError(t, err)
	clock := &fakeClock{now: t0}
	e := oci.NewECR(awsauth.NewECRAPI(identity()), awsauth.NewECRAPI(pull), &recorder{}, clock)

	h.hold()
	first := make(chan error, 1)
	go func() {
		_, cerr := e.Credential(context.Background(), ecrURL)
		first <- cerr
	}()
	<-h.arrived // STS (pull role) and ECR (push) in flight
	<-h.arrived
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Credential(cancelled, ecrURL)
	require.ErrorIs(t, err, context.Canceled, "a second reader waits for the fetch in flight only as long as its context")
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)

	err = <-first
	require.Error(t, err)
	assert.True(t, isTimeout(err), "the AWS client's timeout ended the fetch: %v", err)
	stall := domain.RegistryStall("publish", err)
	require.NotNil(t, stall, "no token at all: the stage stalls")
	assert.Equal(t, domain.StallRegistryCredentialsUnavailable, stall.Reason())

	h.release()
	clock.Add(oci.ECRRetryMin)
	cred, err := e.Credential(context.Background(), ecrURL)
	require.NoError(t, err, "the next attempt succeeds")
	assert.Equal(t, "push-password", cred.Password)
}
