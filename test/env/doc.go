// Package env starts a real control plane (kube-apiserver and etcd built from the Go
// module proxy, see test/tools/envtest-bins.sh) for tests that need an API server.
//
// Tests share one control plane per package: start it in TestMain with Start and stop it
// after m.Run. The binaries are looked up in KUBEBUILDER_ASSETS and, when that is unset,
// in the cache directory the build script writes to; `make test` builds them first.
package env
