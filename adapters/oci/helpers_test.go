package oci_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/retry"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/oci"
)

// fastRetry keeps transient-failure tests quick: 5 retries of about 1 ms.
var fastRetry = &retry.GenericPolicy{
	Retryable: retry.DefaultPredicate, Backoff: retry.ExponentialBackoff(time.Millisecond, 1, 0.1),
	MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond, MaxRetry: 5,
}

// serveRegistry serves a real OCI registry over loopback, optionally wrapped.
func serveRegistry(t testing.TB, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// indexEntry is one chart version of a fake Helm repository.
type indexEntry struct {
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
	Digest  string   `json:"digest,omitempty"`
}

// upstream plays the internet in-process: Helm HTTP repositories by URL and
// an OCI registry (ghcr.io) served by go-containerregistry. Files overrides
// any URL (used to tamper with archives and blobs).
type upstream struct {
	mu      sync.Mutex
	entries map[string]map[string][]indexEntry // repo URL -> chart -> versions
	files   map[string][]byte                  // full URL -> body
	oci     http.Handler
}

func newUpstream() *upstream {
	return &upstream{
		entries: map[string]map[string][]indexEntry{}, files: map[string][]byte{},
		oci: registry.New(registry.Logger(log.New(io.Discard, "", 0))),
	}
}

// RoundTrip serves a request in-process.
func (u *upstream) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	u.mu.Lock()
	full := "https://" + req.URL.Host + req.URL.Path
	body, isFile := u.files[full]
	charts, isRepo := u.entries[strings.TrimSuffix(full, "/index.yaml")]
	u.mu.Unlock()
	switch {
	case isFile && req.Method == http.MethodGet:
		_, _ = rec.Write(body)
	case isRepo && strings.HasSuffix(full, "/index.yaml"):
		raw, _ := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": charts})
		_, _ = rec.Write(raw)
	case req.URL.Host == "ghcr.io":
		u.oci.ServeHTTP(rec, req)
	default:
		rec.WriteHeader(http.StatusNotFound)
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// addHTTPChart publishes archive in the Helm repository repoURL; indexDigest
// "" announces the archive's real digest, "-" announces none.
func (u *upstream) addHTTPChart(repoURL, name, version string, archive []byte, indexDigest string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch indexDigest {
	case "":
		indexDigest = hexDigest(archive)
	case "-":
		indexDigest = ""
	}
	file := name + "-" + version + ".tgz"
	if u.entries[repoURL] == nil {
		u.entries[repoURL] = map[string][]indexEntry{}
	}
	u.entries[repoURL][name] = append(u.entries[repoURL][name], indexEntry{Version: version, URLs: []string{file}, Digest: indexDigest})
	u.files[repoURL+"/"+file] = archive
	return repoURL + "/" + file
}

// addOCIChart pushes archive as a Helm OCI chart to <parent>/<name>:<version>
// (parent without oci://) and returns the chart layer descriptor.
func (u *upstream) addOCIChart(t *testing.T, parent, name, version string, archive []byte) ocispec.Descriptor {
	t.Helper()
	return pushOCIChart(t, ociRepo(t, parent+"/"+name, &http.Client{Transport: u}, false), name, version, archive, nil)
}

// ociRepo opens the repository ref (without oci://) with client.
func ociRepo(t *testing.T, ref string, client *http.Client, plainHTTP bool) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(ref)
	require.NoError(t, err)
	repo.Client, repo.PlainHTTP = &auth.Client{Client: client}, plainHTTP
	return repo
}

// pushOCIChart pushes archive as a Helm OCI chart of that name and version to
// repo, tagged version, the manifest annotated with ann, and returns the chart
// layer descriptor.
func pushOCIChart(t *testing.T, repo *remote.Repository, name, version string, archive []byte, ann map[string]string) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	cfg, err := yaml.YAMLToJSON([]byte("apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"))
	require.NoError(t, err)
	cfgDesc, err := oras.PushBytes(ctx, repo, oci.HelmConfigMediaType, cfg)
	require.NoError(t, err)
	layer, err := oras.PushBytes(ctx, repo, oci.HelmChartMediaType, archive)
	require.NoError(t, err)
	m, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{
		ConfigDescriptor: &cfgDesc, Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: ann,
	})
	require.NoError(t, err)
	require.NoError(t, repo.Tag(ctx, m, version))
	return layer
}

// tamper serves body instead of the real content at url.
func (u *upstream) tamper(url string, body []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.files[url] = body
}

// client routes the runtime registry (loopback) to the network and every
// other host to the in-process upstream.
func (u *upstream) client(runtimeHost string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Host == runtimeHost {
			return http.DefaultTransport.RoundTrip(req)
		}
		return u.RoundTrip(req)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chartArchive builds a chart archive <name>/Chart.yaml + templates; salt
// changes the content without changing name or version.
func chartArchive(t testing.TB, name, version, salt string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct{ name, body string }{
		{name + "/Chart.yaml", "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"},
		{name + "/values.yaml", "salt: " + salt + "\n"},
		{name + "/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"},
	} {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))}))
		_, err := tw.Write([]byte(f.body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func hexDigest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// newRegistry returns an adapter for a fresh in-process registry and upstream.
func newRegistry(t *testing.T) (*oci.Registry, *upstream) {
	t.Helper()
	return newRegistryAt(t, serveRegistry(t, nil))
}

// newRegistryAt returns an adapter for the registry at host with a fresh
// upstream: two of them on one host play the same runtime registry before and
// after an upstream changed.
func newRegistryAt(t *testing.T, host string) (*oci.Registry, *upstream) {
	t.Helper()
	up := newUpstream()
	reg, err := oci.New(oci.Options{Registry: "oci://" + host + "/aicr", PlainHTTP: true, HTTPClient: up.client(host), Retry: fastRetry})
	require.NoError(t, err)
	return reg, up
}

// fakeClock is a ports.Clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// counter counts calls.
type counter struct{ n atomic.Int64 }

func (c *counter) inc() int64 { return c.n.Add(1) }
