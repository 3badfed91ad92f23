package oci_test

import (
	"context"
	"errors"
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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// The login of a private upstream, as NGC hands it out: a fixed username and an API key.
const (
	ngcUser = "$oauthtoken"
	ngcKey  = "ngc-api-key"
)

// basicAuthSecret is a Secret of aicr-system of type typ holding a login.
func basicAuthSecret(name string, typ corev1.SecretType, user, pass string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "aicr-system", Name: name}, Type: typ,
		Data: map[string][]byte{corev1.BasicAuthUsernameKey: []byte(user), corev1.BasicAuthPasswordKey: []byte(pass)},
	}
}

// loginsOf reads the Secrets of aicr-system from a fake API server holding secrets.
func loginsOf(secrets ...client.Object) (oci.KubeSecrets, client.Client) {
	c := fake.NewClientBuilder().WithObjects(secrets...).Build()
	return oci.KubeSecrets{Reader: c, Namespace: "aicr-system"}, c
}

func TestMirrorChart_HelmRepositoryGetsTheLoginOfItsSecret(t *testing.T) {
	t.Parallel()
	ngcHelm := func(e *tlsEnv) []oci.UpstreamCredential {
		return []oci.UpstreamCredential{{Repository: e.repoURL + "/nvidia", Secret: "ngc-helm"}}
	}
	good := basicAuthSecret("ngc-helm", corev1.SecretTypeBasicAuth, ngcUser, ngcKey)
	tests := []struct {
		name    string
		secrets []client.Object
		creds   func(e *tlsEnv) []oci.UpstreamCredential
		setup   func(e *tlsEnv)
		wantErr error
		wantMsg string
		// wantAuthed counts the repository's requests that carried a login.
		wantAuthed int64
	}{
		{name: "the index and the archive requests carry the login", secrets: []client.Object{good}, creds: ngcHelm, wantAuthed: 2},
		{name: "a redirect on the repository's host keeps the login", secrets: []client.Object{good}, creds: ngcHelm,
			setup: func(e *tlsEnv) {
				e.repo.routes = map[string]http.HandlerFunc{"/nvidia/chart.tgz": redirect("/nvidia/moved.tgz")}
			},
			wantAuthed: 3},
		{name: "the longest prefix wins", creds: func(e *tlsEnv) []oci.UpstreamCredential {
			return []oci.UpstreamCredential{{Repository: e.repoURL, Secret: "stale"}, {Repository: e.repoURL + "/nvidia/", Secret: "ngc-helm"}}
		}, secrets: []client.Object{good, basicAuthSecret("stale", corev1.SecretTypeBasicAuth, ngcUser, "old-key")}, wantAuthed: 2},
		{name: "without credentials the error says to set upstream.credentials",
			wantErr: ports.ErrUnauthorized, wantMsg: "the upstream needs credentials: set upstream.credentials"},
		{name: "a wrong password names the Secret the upstream refused", creds: ngcHelm,
			secrets: []client.Object{basicAuthSecret("ngc-helm", corev1.SecretTypeBasicAuth, ngcUser, "revoked-key")},
			wantErr: ports.ErrUnauthorized, wantMsg: "the upstream refused the credentials of Secret ngc-helm", wantAuthed: 1},
		{name: "a prefix ending inside a path segment sends nothing", secrets: []client.Object{good},
			creds: func(e *tlsEnv) []oci.UpstreamCredential {
				return []oci.UpstreamCredential{{Repository: e.repoURL + "/nvid", Secret: "ngc-helm"}}
			},
			wantErr: ports.ErrUnauthorized, wantMsg: "the upstream needs credentials"},
		{name: "a prefix on another host sends nothing", secrets: []client.Object{good},
			creds: func(e *tlsEnv) []oci.UpstreamCredential {
				return []oci.UpstreamCredential{{Repository: e.otherURL + "/nvidia", Secret: "ngc-helm"}}
			},
			wantErr: ports.ErrUnauthorized, wantMsg: "the upstream needs credentials"},
		{name: "a Secret of another type is refused before any request", creds: ngcHelm,
			secrets: []client.Object{basicAuthSecret("ngc-helm", corev1.SecretTypeOpaque, ngcUser, ngcKey)},
			wantErr: ports.ErrCredentialsUnavailable, wantMsg: "secret aicr-system/ngc-helm is of type Opaque: it must be kubernetes.io/basic-auth"},
		{name: "a missing Secret is RegistryCredentialsUnavailable", creds: ngcHelm,
			wantErr: ports.ErrCredentialsUnavailable, wantMsg: "from Secret ngc-helm (upstream.credentials)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logins, _ := loginsOf(tt.secrets...)
			e := newTLSEnvWith(t, func(e *tlsEnv, opts *oci.Options) {
				e.repo.user, e.repo.pass = ngcUser, ngcKey
				if tt.creds != nil {
					opts.UpstreamCredentials, opts.UpstreamLogins = tt.creds(e), logins
				}
			})
			if tt.setup != nil {
				tt.setup(e)
			}

			pc, err := e.reg.MirrorChart(context.Background(), ports.UpstreamChart{
				Chart: ports.ChartSource{Repository: e.repoURL + "/nvidia", Name: tlsChart, Version: tlsVersion}})

			assert.Equal(t, tt.wantAuthed, e.repo.authed.Load(), "requests of the repository with a login")
			assert.Zero(t, e.other.hits.Load(), "no request reaches another host")
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, ports.Digest("sha256:"+hexDigest(e.repo.archive)), pc.ArchiveDigest)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			assert.ErrorContains(t, err, tt.wantMsg)
			if errors.Is(tt.wantErr, ports.ErrCredentialsUnavailable) {
				assert.Zero(t, e.repo.hits.Load(), "no request without the login")
			}
		})
	}
}

// TestMirrorChart_HelmLoginNeverLeavesTheRepositoryHost: an index entry or a redirect that
// points at another host is refused, and that host never sees the login.
func TestMirrorChart_HelmLoginNeverLeavesTheRepositoryHost(t *testing.T) {
	t.Parallel()
	for name, setup := range map[string]func(e *tlsEnv){
		"an archive redirect to another host": func(e *tlsEnv) {
			e.repo.routes = map[string]http.HandlerFunc{"/nvidia/chart.tgz": redirect(e.otherURL + "/nvidia/chart.tgz")}
		},
		"an index redirect to another host": func(e *tlsEnv) {
			e.repo.routes = map[string]http.HandlerFunc{"/nvidia/index.yaml": redirect(e.otherURL + "/nvidia/index.yaml")}
		},
		"an index entry on another host": func(e *tlsEnv) { e.repo.indexURL = e.otherURL + "/nvidia/chart.tgz" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logins, _ := loginsOf(basicAuthSecret("ngc-helm", corev1.SecretTypeBasicAuth, ngcUser, ngcKey))
			e := newTLSEnvWith(t, func(e *tlsEnv, opts *oci.Options) {
				e.repo.user, e.repo.pass = ngcUser, ngcKey
				opts.UpstreamCredentials = []oci.UpstreamCredential{{Repository: e.repoURL + "/nvidia", Secret: "ngc-helm"}}
				opts.UpstreamLogins = logins
			})
			setup(e)

			_, err := e.reg.MirrorChart(context.Background(), ports.UpstreamChart{
				Chart: ports.ChartSource{Repository: e.repoURL + "/nvidia", Name: tlsChart, Version: tlsVersion}})

			require.ErrorIs(t, err, ports.ErrArchiveRejected)
			assert.Zero(t, e.other.authed.Load(), "the other host never sees the login")
			assert.Positive(t, e.repo.authed.Load(), "the repository's host got it")
		})
	}
}

// TestMirrorChart_RotatedSecretIsReadOnTheNextMirror: the Secret is read at every mirror, so a
// key rotated after a refusal is used on the next resolution without a restart.
func TestMirrorChart_RotatedSecretIsReadOnTheNextMirror(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	secret := basicAuthSecret("ngc-helm", corev1.SecretTypeBasicAuth, ngcUser, "expired-key")
	logins, kube := loginsOf(secret)
	e := newTLSEnvWith(t, func(e *tlsEnv, opts *oci.Options) {
		e.repo.user, e.repo.pass = ngcUser, ngcKey
		opts.UpstreamCredentials = []oci.UpstreamCredential{{Repository: e.repoURL + "/nvidia", Secret: "ngc-helm"}}
		opts.UpstreamLogins = logins
	})
	chart := ports.UpstreamChart{Chart: ports.ChartSource{Repository: e.repoURL + "/nvidia", Name: tlsChart, Version: tlsVersion}}

	_, err := e.reg.MirrorChart(ctx, chart)
	require.ErrorIs(t, err, ports.ErrUnauthorized)

	secret.Data[corev1.BasicAuthPasswordKey] = []byte(ngcKey)
	require.NoError(t, kube.Update(ctx, secret))
	_, err = e.reg.MirrorChart(ctx, chart)
	require.NoError(t, err)
}

func TestMirrorChart_OCIUpstreamGetsTheLoginOfItsSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		password string
		// prefix returns the credential's prefix for the upstream and storage hosts ("": none).
		prefix  func(upstream, storage string) string
		wantErr string
	}{
		{name: "the Secret's login reaches the registry host only", password: ngcKey,
			prefix: func(upstream, _ string) string { return "oci://" + upstream + "/nvidia" }},
		{name: "a wrong password names the Secret the upstream refused", password: "revoked-key",
			prefix:  func(upstream, _ string) string { return "oci://" + upstream },
			wantErr: "the upstream refused the credentials of Secret ngc-oci"},
		{name: "without credentials the error says to set upstream.credentials",
			wantErr: "the upstream needs credentials: set upstream.credentials"},
		{name: "a prefix on another registry host sends nothing", password: ngcKey,
			prefix:  func(_, storage string) string { return "oci://" + storage + "/nvidia" },
			wantErr: "the upstream needs credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			store := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
			var storageAuthed atomic.Int64
			storage := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					storageAuthed.Add(1)
				}
				store.ServeHTTP(w, r)
			}))
			t.Cleanup(storage.Close)
			// The upstream wants the login on every request and serves blobs from storage, another
			// port of the same address (net/http alone would forward the login there).
			upstreamSrv := httptest.NewTLSServer(basicAuth(ngcUser, ngcKey)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
					http.Redirect(w, r, storage.URL+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				store.ServeHTTP(w, r)
			})))
			t.Cleanup(upstreamSrv.Close)
			upstreamHost, storageHost := strings.TrimPrefix(upstreamSrv.URL, "https://"), strings.TrimPrefix(storage.URL, "https://")
			archive := chartArchive(t, "kai-scheduler", "v0.13.0", "private")
			layer := pushOCIChart(t, ociRepo(t, storageHost+"/nvidia/kai-scheduler", storage.Client(), false),
				"kai-scheduler", "v0.13.0", archive, nil)

			runtime := serveRegistry(t, nil)
			tlsTransport := storage.Client().Transport
			opts := oci.Options{
				Registry: "oci://" + runtime + "/aicr", PlainHTTP: true, Retry: fastRetry,
				HTTPClient: &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
					if req.URL.Host == runtime {
						return http.DefaultTransport.RoundTrip(req)
					}
					return tlsTransport.RoundTrip(req)
				})},
			}
			if tt.prefix != nil {
				opts.UpstreamCredentials = []oci.UpstreamCredential{{Repository: tt.prefix(upstreamHost, storageHost), Secret: "ngc-oci"}}
				opts.UpstreamLogins, _ = loginsOf(basicAuthSecret("ngc-oci", corev1.SecretTypeBasicAuth, ngcUser, tt.password))
			}
			reg, err := oci.New(opts)
			require.NoError(t, err)

			pc, err := reg.MirrorChart(ctx, ports.UpstreamChart{Chart: ports.ChartSource{
				Repository: "oci://" + upstreamHost + "/nvidia", Name: "kai-scheduler", Version: "v0.13.0"}})

			assert.Zero(t, storageAuthed.Load(), "the blob storage host never sees the login")
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, ports.Digest(layer.Digest), pc.ArchiveDigest)
				return
			}
			require.ErrorIs(t, err, ports.ErrUnauthorized)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestKubeSecrets_ReadLoginTakesOnlyABasicAuthSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	logins, _ := loginsOf(
		basicAuthSecret("ngc-helm", corev1.SecretTypeBasicAuth, ngcUser, ngcKey),
		basicAuthSecret("opaque", "", ngcUser, ngcKey),
		basicAuthSecret("docker", corev1.SecretTypeDockerConfigJson, ngcUser, ngcKey),
		basicAuthSecret("no-password", corev1.SecretTypeBasicAuth, ngcUser, ""),
	)
	login, err := logins.ReadLogin(ctx, "ngc-helm")
	require.NoError(t, err)
	assert.Equal(t, oci.Login{Username: ngcUser, Password: ngcKey}, login)
	for name, want := range map[string]string{
		"opaque":      "secret aicr-system/opaque is of type Opaque: it must be kubernetes.io/basic-auth (keys username and password)",
		"docker":      "secret aicr-system/docker is of type kubernetes.io/dockerconfigjson: it must be kubernetes.io/basic-auth",
		"no-password": "secret aicr-system/no-password has no username or no password",
		"missing":     "get secret aicr-system/missing",
	} {
		_, err := logins.ReadLogin(ctx, name)
		require.ErrorIs(t, err, ports.ErrCredentialsUnavailable, name)
		assert.ErrorContains(t, err, want, name)
	}
}

func TestNew_UpstreamCredentialsNeedAPrefixAndAReader(t *testing.T) {
	t.Parallel()
	logins, _ := loginsOf()
	for name, opts := range map[string]oci.Options{
		"an http prefix": {UpstreamLogins: logins,
			UpstreamCredentials: []oci.UpstreamCredential{{Repository: "http://charts.example.com", Secret: "charts"}}},
		"no reader of the Secrets": {UpstreamCredentials: []oci.UpstreamCredential{{Repository: "oci://nvcr.io", Secret: "ngc"}}},
	} {
		opts.Registry = "oci://registry.example.com/aicr"
		_, err := oci.New(opts)
		assert.Error(t, err, name)
	}
}
