package manager

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ErrLeaseNotHeld refuses a write of a replica that led but has not renewed its Lease within
// the renew deadline: another replica may hold the Lease by now.
var ErrLeaseNotHeld = errors.New("leader election Lease not renewed within the renew deadline; " +
	"this replica may no longer lead, so it writes nothing")

// leaseFence keeps a replica that lost its Lease from writing while its leader election has
// not noticed yet. client-go's elector gives up only when a renewal fails for the whole renew
// deadline, counted from the attempt after its last success: a replica stopped past its lease
// (SIGSTOP, a frozen VM, a long pause) that resumes keeps its controllers running that long
// while another replica leads. The fence sees the elector's writes of the Lease go by: once the
// replica led, every other write is refused unless the last accepted Lease write was sent
// within the renew deadline. That deadline is shorter than the lease duration, so a write leaves
// before any other replica may take the Lease over (a write already in flight may still land).
// Before the replica first leads nothing is refused: it writes only at start (its seal key).
// Reviews (TokenReview, SubjectAccessReview) store nothing and always pass.
type leaseFence struct {
	// lease is the path of the Lease and leases the path of the namespace's Leases (a create).
	lease, leases string
	renewDeadline time.Duration
	now           func() time.Time
	mu            sync.Mutex
	// renewed is when the last accepted write of the Lease was sent; zero until it led.
	renewed time.Time
}

// newLeaseFence fences writes on the Lease name in namespace.
func newLeaseFence(namespace, name string, renewDeadline time.Duration, now func() time.Time) *leaseFence {
	leases := fmt.Sprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases", namespace)
	return &leaseFence{lease: leases + "/" + name, leases: leases, renewDeadline: renewDeadline, now: now}
}

// wrap is the fence as a client-go transport wrapper (rest.Config.Wrap).
func (f *leaseFence) wrap(rt http.RoundTripper) http.RoundTripper {
	return &fencedTransport{fence: f, rt: rt}
}

// fencedTransport sends a request through rt unless the fence refuses it.
type fencedTransport struct {
	fence *leaseFence
	rt    http.RoundTripper
}

// RoundTrip sends req, records an accepted write of the Lease and refuses a fenced write.
func (t *fencedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f := t.fence
	path := strings.TrimSuffix(req.URL.Path, "/")
	if !writes(req.Method) || review(path) {
		return t.rt.RoundTrip(req)
	}
	if path == f.lease || (path == f.leases && req.Method == http.MethodPost) {
		sent := f.now()
		resp, err := t.rt.RoundTrip(req)
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			f.mu.Lock()
			f.renewed = sent
			f.mu.Unlock()
		}
		return resp, err
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	return t.rt.RoundTrip(req)
}

// WrappedRoundTripper is the transport under the fence, which client-go's wrappers cancel a
// timed-out request through.
func (t *fencedTransport) WrappedRoundTripper() http.RoundTripper { return t.rt }

// check refuses a write once the replica led and its last accepted Lease write is older than
// the renew deadline.
func (f *leaseFence) check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.renewed.IsZero() {
		return nil
	}
	if age := f.now().Sub(f.renewed); age >= f.renewDeadline {
		return fmt.Errorf("%w (last renewal sent %s ago, renew deadline %s)", ErrLeaseNotHeld, age.Round(time.Millisecond), f.renewDeadline)
	}
	return nil
}

// writes reports whether an HTTP method changes state on the API server.
func writes(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// review reports whether path is a TokenReview or SubjectAccessReview (the metrics endpoint's
// authentication and authorization): a question to the API server that stores nothing.
func review(path string) bool {
	return strings.HasPrefix(path, "/apis/authentication.k8s.io/") || strings.HasPrefix(path, "/apis/authorization.k8s.io/")
}
