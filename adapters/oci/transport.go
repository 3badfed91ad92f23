package oci

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

const (
	// requestTimeout bounds one HTTP request of the adapter, its retries and
	// reading its body included (a 64 MiB chart archive at 1 MiB/s takes about
	// a minute), when Options.HTTPClient sets no timeout of its own.
	requestTimeout = 2 * time.Minute
	// maxRedirects is the redirect limit of net/http's default policy.
	maxRedirects = 10
	// dialTimeout bounds opening a TCP connection.
	dialTimeout = 10 * time.Second
	// tlsHandshakeTimeout bounds the TLS handshake.
	tlsHandshakeTimeout = 10 * time.Second
	// responseHeaderTimeout bounds the wait for a response's headers once the request is
	// sent (a registry that accepted the connection but never answers).
	responseHeaderTimeout = 30 * time.Second
)

// NewHTTPClient returns the client of every request of the adapter when Options.HTTPClient
// is nil: proxies from the environment, connect, TLS-handshake and response-header timeouts
// on its transport, and requestTimeout on each request as a whole (retries and body included).
func NewHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{Timeout: requestTimeout, Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		ExpectContinueTimeout: time.Second,
	}}
}

// newClient returns a client over rt with base's timeout (requestTimeout
// when base has none) and the redirect policy check.
func newClient(base *http.Client, rt http.RoundTripper, check func(*http.Request, []*http.Request) error) *http.Client {
	timeout := base.Timeout
	if timeout == 0 {
		timeout = requestTimeout
	}
	return &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: check}
}

// httpsOnly refuses every request that is not https before it leaves the
// process: upstream chart sources are https only, and so is every URL an
// upstream hands back (redirects, token realms).
type httpsOnly struct{ next http.RoundTripper }

// RoundTrip sends req when it is https and refuses it with
// ports.ErrArchiveRejected otherwise; it refuses the same way an answer whose
// bearer token realm is not https, before the registry client follows it.
func (t httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return nil, fmt.Errorf("%s %s: upstream requests are https only: %w", req.Method, req.URL.Redacted(), ports.ErrArchiveRejected)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	for _, challenge := range resp.Header.Values("WWW-Authenticate") {
		m := bearerRealm.FindStringSubmatch(challenge)
		if m == nil {
			continue
		}
		if realm, parseErr := url.Parse(m[1]); parseErr != nil || realm.Scheme != "https" {
			_ = resp.Body.Close()
			return nil, fmt.Errorf("%s %s: token realm %q: upstream requests are https only: %w",
				req.Method, req.URL.Redacted(), m[1], ports.ErrArchiveRejected)
		}
	}
	return resp, nil
}

// bearerRealm matches the realm of a Bearer challenge (RFC 6750 section 3).
var bearerRealm = regexp.MustCompile(`(?i)^\s*bearer\s.*\brealm="([^"]*)"`)

// noDowngrade is the redirect policy of the runtime registry: any host, but
// never from https to plain http.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if prev := via[len(via)-1].URL; prev.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect from %s to %s: https is never downgraded", prev.Redacted(), req.URL.Redacted())
	}
	return nil
}

// upstreamRedirect is the redirect policy of oci:// upstreams: https to any
// host (registries serve blobs from storage hosts; every blob is verified
// against its digest), never plain http.
func upstreamRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects: %w", maxRedirects, ports.ErrArchiveRejected)
	}
	if req.URL.Scheme != "https" {
		return fmt.Errorf("redirect from %s to %s: upstream requests are https only: %w",
			via[len(via)-1].URL.Redacted(), req.URL.Redacted(), ports.ErrArchiveRejected)
	}
	return nil
}

// sameHostRedirect is the redirect policy of Helm repository requests (index
// and archive): https on the host of the first request only, so an upstream
// never steers the operator to another host.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if err := upstreamRedirect(req, via); err != nil {
		return err
	}
	if !sameHost(req.URL, via[0].URL) {
		return fmt.Errorf("redirect from %s to %s: another host: %w", via[0].URL.Redacted(), req.URL.Redacted(), ports.ErrArchiveRejected)
	}
	return nil
}

// sameHost reports whether a and b name the same host and port (an empty
// port is the scheme's default).
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}
