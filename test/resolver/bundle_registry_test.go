package resolver_test

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
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/ports"
)

// Logins of the in-process bundle registry.
const (
	pushUser, pushPass = "aicr-push", "push-s3cret"
)

// bundleRegistry is an in-process OCI registry demanding pushUser's basic auth on every
// request, and the operator's oci.Registry for it with the static provider reading a docker
// config Secret that holds pushUser with password (pushPass, or a wrong one; "": no
// credential provider, so the Job's docker config has no entry).
type bundleRegistry struct {
	host string
	reg  *oci.Registry
}

func serveBundleRegistry(t testing.TB, password string) bundleRegistry {
	t.Helper()
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != pushUser || p != pushPass {
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
		a := base64.StdEncoding.EncodeToString([]byte(pushUser + ":" + password))
		cfg := fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, host, a)
		opts.Credentials = oci.Static{Secrets: staticSecrets{oci.DockerConfigKey: cfg}, SecretName: "regcred"}
	}
	reg, err := oci.New(opts)
	require.NoError(t, err)
	return bundleRegistry{host: host, reg: reg}
}

// repository is <host>/aicr/bundles/cluster.
func (b bundleRegistry) repository() string { return b.host + "/aicr/" + oci.BundlesRepository }

// push is the right push login.
func (bundleRegistry) push() auth.Credential {
	return auth.Credential{Username: pushUser, Password: pushPass}
}

// staticSecrets is the data of the one Secret the static provider reads.
type staticSecrets map[string][]byte

func (s staticSecrets) ReadSecret(context.Context, string) (map[string][]byte, error) { return s, nil }

// realBundles is a Registry whose bundles live in an in-process registry (BundleTarget and
// PullBundle of the operator's own adapter) while charts go to the Registry it wraps.
type realBundles struct {
	ports.Registry
	bundles *oci.Registry
}

func (r realBundles) BundleTarget(ctx context.Context) (ports.BundleTarget, error) {
	return r.bundles.BundleTarget(ctx)
}

func (r realBundles) PullBundle(ctx context.Context, d ports.Digest) (fs.FS, error) {
	return r.bundles.PullBundle(ctx, d)
}
