package resolver_test

import (
	"testing"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/test/aicroci"
)

// Logins of the in-process bundle registry.
const pushUser, pushPass = aicroci.PushUser, aicroci.PushPassword

// bundleRegistry is an in-process OCI registry demanding pushUser's basic auth (aicroci).
type bundleRegistry struct {
	host string
	reg  *oci.Registry
}

func serveBundleRegistry(t testing.TB, password string) bundleRegistry {
	t.Helper()
	b := aicroci.ServeBundleRegistry(t, password)
	return bundleRegistry{host: b.Host, reg: b.Registry}
}

// repository is <host>/aicr/bundles/cluster.
func (b bundleRegistry) repository() string { return b.host + "/aicr/" + oci.BundlesRepository }

// push is the right push login.
func (bundleRegistry) push() auth.Credential {
	return auth.Credential{Username: pushUser, Password: pushPass}
}

// realBundles is a Registry whose bundles live in an in-process registry while charts go to
// the Registry it wraps.
type realBundles = aicroci.RealBundles
