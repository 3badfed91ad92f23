package aicroci

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// The login an in-process bundle registry demands.
const (
	// PushUser is its user name.
	PushUser = "aicr-push"
	// PushPassword is its password.
	PushPassword = "push-s3cret"
)

// BundleRegistry is an in-process OCI registry on loopback demanding PushUser's basic auth on
// every request, and the operator's oci.Registry for it with the static provider.
type BundleRegistry struct {
	// Host is the registry's host:port.
	Host string
	// Registry is the operator's adapter for <Host>/aicr.
	Registry *oci.Registry
}

// ServeBundleRegistry starts a BundleRegistry whose static docker config Secret holds PushUser
// with password (PushPassword, or a wrong one; "": no credential provider, so a bundle Job's
// docker config has no entry). It stops when the test ends.
func ServeBundleRegistry(t testing.TB, password string) BundleRegistry {
	t.Helper()
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != PushUser || p != PushPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	opts := oci.Options{Registry: host + "/aicr", PlainHTTP: true}
	if password != "" {
		a := base64.StdEncoding.EncodeToString([]byte(PushUser + ":" + password))
		cfg := fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, host, a)
		opts.Credentials = oci.Static{Secrets: staticSecret{oci.DockerConfigKey: cfg}, SecretName: "regcred"}
	}
	reg, err := oci.New(opts)
	require.NoError(t, err)
	return BundleRegistry{Host: host, Registry: reg}
}

// staticSecret is the data of the one Secret the static provider reads.
type staticSecret map[string][]byte

func (s staticSecret) ReadSecret(context.Context, string) (map[string][]byte, error) { return s, nil }

// RealBundles is a Registry whose bundles live in a BundleRegistry (BundleTarget and PullBundle
// of the operator's own adapter) while charts go to the Registry it wraps.
type RealBundles struct {
	ports.Registry
	Bundles *oci.Registry
}

// BundleTarget is the bundle registry's.
func (r RealBundles) BundleTarget(ctx context.Context) (ports.BundleTarget, error) {
	return r.Bundles.BundleTarget(ctx)
}

// Resolve resolves a reference of the bundle repository in the bundle registry, any other in
// the Registry it wraps.
func (r RealBundles) Resolve(ctx context.Context, ref string) (ports.Digest, error) {
	target, err := r.Bundles.BundleTarget(ctx)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(ref, target.Repository+":") || strings.HasPrefix(ref, target.Repository+"@") {
		return r.Bundles.Resolve(ctx, ref)
	}
	return r.Registry.Resolve(ctx, ref)
}

// PullBundle pulls from the bundle registry.
func (r RealBundles) PullBundle(ctx context.Context, d ports.Digest) (fs.FS, error) {
	return r.Bundles.PullBundle(ctx, d)
}
