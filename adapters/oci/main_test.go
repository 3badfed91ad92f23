package oci_test

import (
	"net/http"
	"os"
	"testing"
)

// keepIdleConnections is the shared default transport without its CloseIdleConnections
// method. httptest.Server.Close closes the idle connections of http.DefaultTransport; with
// the package's tests running in parallel, that breaks a connection another test's client has
// just taken from the pool ("http: CloseIdleConnections called"). The clients under test use
// http.DefaultTransport when given no client, as in production.
type keepIdleConnections struct{ http.RoundTripper }

func TestMain(m *testing.M) {
	http.DefaultTransport = keepIdleConnections{http.DefaultTransport}
	os.Exit(m.Run())
}
