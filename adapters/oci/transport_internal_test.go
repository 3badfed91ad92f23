package oci

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/NVIDIA/aicr/ports"
)

func TestNew_EveryClientHasATimeoutAndARedirectPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		base *http.Client
		want time.Duration
	}{
		{"the default client gets requestTimeout", nil, requestTimeout},
		{"a client without timeout gets requestTimeout", &http.Client{}, requestTimeout},
		{"a client's own timeout is kept", &http.Client{Timeout: time.Second}, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := New(Options{Registry: "oci://registry.example.com/aicr", HTTPClient: tc.base})
			require.NoError(t, err)
			for name, c := range map[string]*http.Client{"runtime": r.http, "oci upstream": r.upstream, "helm": r.helm} {
				assert.Equal(t, tc.want, c.Timeout, name)
				assert.NotNil(t, c.CheckRedirect, name)
			}
		})
	}
}

// TestNew_DefaultTransportHasConnectTLSAndHeaderTimeouts: without a client of the caller's,
// every request goes through a transport that bounds the connection, the TLS handshake and the
// wait for response headers, under the retrying transport.
func TestNew_DefaultTransportHasConnectTLSAndHeaderTimeouts(t *testing.T) {
	t.Parallel()
	r, err := New(Options{Registry: "oci://registry.example.com/aicr"})
	require.NoError(t, err)
	rt, ok := r.http.Transport.(*retry.Transport)
	require.True(t, ok, "retrying transport, got %T", r.http.Transport)
	tr, ok := rt.Base.(*http.Transport)
	require.True(t, ok, "net/http transport, got %T", rt.Base)
	assert.NotNil(t, tr.DialContext, "a dialer with dialTimeout")
	assert.Equal(t, tlsHandshakeTimeout, tr.TLSHandshakeTimeout)
	assert.Equal(t, responseHeaderTimeout, tr.ResponseHeaderTimeout)
	assert.NotNil(t, tr.Proxy, "proxies from the environment")
}

func TestRedirectPolicies(t *testing.T) {
	t.Parallel()
	policies := map[string]func(*http.Request, []*http.Request) error{
		"runtime": noDowngrade, "oci upstream": upstreamRedirect, "helm": sameHostRedirect,
	}
	for _, tc := range []struct {
		name, from, to string
		hops           int
		// allowed lists the policies that follow the redirect.
		allowed []string
	}{
		{"https on the same host", "https://charts.example.com/a", "https://charts.example.com/b", 1, []string{"runtime", "oci upstream", "helm"}},
		{"https on the same host, default port spelled out", "https://charts.example.com/a", "https://CHARTS.example.com:443/b", 1, []string{"runtime", "oci upstream", "helm"}},
		{"https on another host", "https://ghcr.io/v2/x", "https://pkg-containers.example.com/x", 1, []string{"runtime", "oci upstream"}},
		{"https on another port", "https://charts.example.com/a", "https://charts.example.com:8443/a", 1, []string{"runtime", "oci upstream"}},
		{"https to http", "https://charts.example.com/a", "http://charts.example.com/a", 1, nil},
		{"http to http (in-cluster registry)", "http://registry.svc:5000/v2/", "http://registry.svc:5000/v2/x", 1, []string{"runtime"}},
		{"too many redirects", "https://charts.example.com/a", "https://charts.example.com/b", maxRedirects, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			via := make([]*http.Request, tc.hops)
			for i := range via {
				via[i] = &http.Request{URL: mustURL(t, tc.from)}
			}
			req := &http.Request{URL: mustURL(t, tc.to)}
			for name, policy := range policies {
				err := policy(req, via)
				if slices.Contains(tc.allowed, name) {
					assert.NoError(t, err, name)
					continue
				}
				assert.Error(t, err, name)
				if name != "runtime" {
					assert.ErrorIs(t, err, ports.ErrArchiveRejected, name)
				}
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
