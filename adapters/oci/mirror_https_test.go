package oci_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

const (
	tlsChart   = "gpu-operator"
	tlsVersion = "v25.10.1"
)

// helmServer is a Helm repository under /nvidia that counts its requests and
// those carrying an Authorization header: the index lists the archive at
// indexURL ("" : relative chart.tgz); routes override any path; with a user,
// every request needs that user's password as basic auth.
type helmServer struct {
	archive    []byte
	indexURL   string
	routes     map[string]http.HandlerFunc
	user, pass string
	hits       atomic.Int64
	authed     atomic.Int64
}

func (h *helmServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	if r.Header.Get("Authorization") != "" {
		h.authed.Add(1)
	}
	if user, pass, _ := r.BasicAuth(); h.user != "" && (user != h.user || pass != h.pass) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if route, ok := h.routes[r.URL.Path]; ok {
		route(w, r)
		return
	}
	switch r.URL.Path {
	case "/nvidia/index.yaml":
		u := h.indexURL
		if u == "" {
			u = "chart.tgz"
		}
		raw, _ := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": map[string][]indexEntry{
			tlsChart: {{Version: tlsVersion, URLs: []string{u}, Digest: hexDigest(h.archive)}},
		}})
		_, _ = w.Write(raw)
	case "/nvidia/chart.tgz", "/nvidia/moved.tgz":
		_, _ = w.Write(h.archive)
	default:
		http.NotFound(w, r)
	}
}

// redirect answers with a 302 to target.
func redirect(target string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) }
}

// tlsEnv is a runtime registry on loopback, the upstream Helm repository on
// an httptest TLS server, another TLS server (another host: another port)
// and a plain-HTTP server, both serving the same repository.
type tlsEnv struct {
	reg                         *oci.Registry
	repo, other, plain          *helmServer
	repoURL, otherURL, plainURL string
	repoHost, runtimeHost       string
}

func newTLSEnv(t testing.TB) *tlsEnv {
	t.Helper()
	return newTLSEnvWith(t, func(*tlsEnv, *oci.Options) {})
}

// newTLSEnvWith is newTLSEnv with the adapter's options changed by configure, which sees the
// servers' URLs in e.
func newTLSEnvWith(t testing.TB, configure func(e *tlsEnv, opts *oci.Options)) *tlsEnv {
	t.Helper()
	archive := chartArchive(t, tlsChart, tlsVersion, "tls")
	e := &tlsEnv{
		repo: &helmServer{archive: archive}, other: &helmServer{archive: archive}, plain: &helmServer{archive: archive},
		runtimeHost: serveRegistry(t, nil),
	}
	repoSrv, otherSrv, plainSrv := httptest.NewTLSServer(e.repo), httptest.NewTLSServer(e.other), httptest.NewServer(e.plain)
	for _, s := range []*httptest.Server{repoSrv, otherSrv, plainSrv} {
		t.Cleanup(s.Close)
	}
	e.repoURL, e.otherURL, e.plainURL = repoSrv.URL, otherSrv.URL, plainSrv.URL
	e.repoHost = strings.TrimPrefix(repoSrv.URL, "https://")
	tlsTransport := repoSrv.Client().Transport
	client := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Host == e.runtimeHost {
			return http.DefaultTransport.RoundTrip(req)
		}
		return tlsTransport.RoundTrip(req)
	})}
	opts := oci.Options{Registry: "oci://" + e.runtimeHost + "/aicr", PlainHTTP: true, HTTPClient: client, Retry: fastRetry}
	configure(e, &opts)
	var err error
	e.reg, err = oci.New(opts)
	require.NoError(t, err)
	return e
}

func TestMirrorChart_HelmRequestsStayOnHTTPSAndTheRepositoryHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup configures the servers and returns the repository to mirror from.
		setup func(e *tlsEnv) string
		ok    bool
	}{
		{
			name: "an absolute https url on the host and a redirect on the host are followed",
			setup: func(e *tlsEnv) string {
				e.repo.indexURL = e.repoURL + "/nvidia/chart.tgz"
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/chart.tgz": redirect("/nvidia/moved.tgz")}
				return e.repoURL + "/nvidia"
			},
			ok: true,
		},
		{
			name: "a chart url on another host is refused",
			setup: func(e *tlsEnv) string {
				e.repo.indexURL = e.otherURL + "/nvidia/chart.tgz"
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "a scheme-relative chart url on another host is refused",
			setup: func(e *tlsEnv) string {
				e.repo.indexURL = "//" + strings.TrimPrefix(e.otherURL, "https://") + "/nvidia/chart.tgz"
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an http chart url is refused",
			setup: func(e *tlsEnv) string {
				e.repo.indexURL = e.plainURL + "/nvidia/chart.tgz"
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an http chart url on the repository's host is refused",
			setup: func(e *tlsEnv) string {
				e.repo.indexURL = "http://" + e.repoHost + "/nvidia/chart.tgz"
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an index redirect to another host is refused",
			setup: func(e *tlsEnv) string {
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/index.yaml": redirect(e.otherURL + "/nvidia/index.yaml")}
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an index redirect to http is refused",
			setup: func(e *tlsEnv) string {
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/index.yaml": redirect(e.plainURL + "/nvidia/index.yaml")}
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an archive redirect to another host is refused",
			setup: func(e *tlsEnv) string {
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/chart.tgz": redirect(e.otherURL + "/nvidia/chart.tgz")}
				return e.repoURL + "/nvidia"
			},
		},
		{
			name: "an archive redirect to http is refused",
			setup: func(e *tlsEnv) string {
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/chart.tgz": redirect(e.plainURL + "/nvidia/chart.tgz")}
				return e.repoURL + "/nvidia"
			},
		},
		{
			name:  "a plain http repository is refused",
			setup: func(e *tlsEnv) string { return e.plainURL + "/nvidia" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := newTLSEnv(t)
			repo := tt.setup(e)

			pc, err := e.reg.MirrorChart(ctx, ports.UpstreamChart{Chart: ports.ChartSource{Repository: repo, Name: tlsChart, Version: tlsVersion}})

			assert.Zero(t, e.other.hits.Load(), "no request reaches another host")
			assert.Zero(t, e.plain.hits.Load(), "no request goes out over plain http")
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, ports.Digest("sha256:"+hexDigest(e.repo.archive)), pc.ArchiveDigest)
				return
			}
			require.ErrorIs(t, err, ports.ErrArchiveRejected)
			_, err = e.reg.Resolve(ctx, e.reg.Base()+"/charts/"+tlsChart+":"+tlsVersion)
			assert.ErrorIs(t, err, ports.ErrArtifactNotFound, "nothing is pushed")
		})
	}
}
