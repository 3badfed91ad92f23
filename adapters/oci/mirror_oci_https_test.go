package oci_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

func TestMirrorChart_OCIUpstreamNeverLeavesHTTPS(t *testing.T) {
	t.Parallel()
	isBlob := func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/")
	}
	tests := []struct {
		name string
		// wrap serves the upstream registry; storage is another https host
		// serving the same registry, plain a plain-HTTP server.
		wrap func(next http.Handler, storage, plain string) http.Handler
		ok   bool
	}{
		{
			name: "a blob redirect to storage on another https host is followed",
			wrap: func(next http.Handler, storage, _ string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if isBlob(r) {
						http.Redirect(w, r, storage+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
			ok: true,
		},
		{
			name: "a blob redirect to http is refused",
			wrap: func(next http.Handler, _, plain string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if isBlob(r) {
						http.Redirect(w, r, plain+r.URL.Path, http.StatusTemporaryRedirect)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		{
			name: "a token realm over http is refused",
			wrap: func(next http.Handler, _, plain string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("Authorization") == "" {
						w.Header().Set("WWW-Authenticate", `Bearer realm="`+plain+`/token",service="upstream"`)
						w.WriteHeader(http.StatusUnauthorized)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var plainHits atomic.Int64
			plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				plainHits.Add(1)
				w.WriteHeader(http.StatusNotFound)
			}))
			t.Cleanup(plain.Close)
			store := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
			storage := httptest.NewTLSServer(store)
			t.Cleanup(storage.Close)
			upstreamSrv := httptest.NewTLSServer(tt.wrap(store, storage.URL, plain.URL))
			t.Cleanup(upstreamSrv.Close)
			parent := strings.TrimPrefix(upstreamSrv.URL, "https://") + "/nvidia"
			archive := chartArchive(t, "kai-scheduler", "v0.13.0", "oci")
			layer := pushOCIChart(t, ociRepo(t, strings.TrimPrefix(storage.URL, "https://")+"/nvidia/kai-scheduler", storage.Client(), false),
				"kai-scheduler", "v0.13.0", archive, nil)

			runtime := serveRegistry(t, nil)
			tlsTransport := storage.Client().Transport
			reg, err := oci.New(oci.Options{
				Registry: "oci://" + runtime + "/aicr", PlainHTTP: true, Retry: fastRetry,
				HTTPClient: &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
					if req.URL.Host == runtime {
						return http.DefaultTransport.RoundTrip(req)
					}
					return tlsTransport.RoundTrip(req)
				})},
			})
			require.NoError(t, err)

			pc, err := reg.MirrorChart(ctx, ports.UpstreamChart{Chart: ports.ChartSource{Repository: "oci://" + parent, Name: "kai-scheduler", Version: "v0.13.0"}})

			assert.Zero(t, plainHits.Load(), "no request goes out over plain http")
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, ports.Digest(layer.Digest), pc.ArchiveDigest)
				return
			}
			require.ErrorIs(t, err, ports.ErrArchiveRejected)
		})
	}
}
