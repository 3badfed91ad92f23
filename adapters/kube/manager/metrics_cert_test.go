package manager_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestSecureMetricsServeTheMountedCertificate: with a certificate directory (a mounted
// kubernetes.io/tls Secret) the metrics endpoint serves that certificate, so a scraper verifies
// it against the issuing CA instead of skipping verification, and serves a renewed certificate
// once the files change, without a restart (OPS-2).
func TestSecureMetricsServeTheMountedCertificate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	first := newTestCA(t, "metrics-ca-1")
	first.writeServingPair(t, dir)

	addr := freeAddress(t)
	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: fmt.Sprintf("aicr-system-cert-%d", runs.Add(1)), MetricsBindAddress: addr,
		MetricsSecure: true, MetricsCertDir: dir, HealthProbeBindAddress: "0",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	url := "https://" + addr + "/metrics"
	require.Eventually(t, func() bool { return answersUnauthorized(first.client(), url) }, 30*time.Second, 50*time.Millisecond,
		"the endpoint's certificate verifies against the CA that issued the mounted one")
	_, err = scrape(newTestCA(t, "stranger-ca").client(), url, "")
	require.Error(t, err, "a scraper trusting another CA refuses the endpoint")

	renewed := newTestCA(t, "metrics-ca-2")
	renewed.writeServingPair(t, dir)
	require.Eventually(t, func() bool { return answersUnauthorized(renewed.client(), url) }, 30*time.Second, 100*time.Millisecond,
		"the renewed certificate is served without a restart")

	cancel()
	require.NoError(t, <-done)
}

// answersUnauthorized reports whether c completes a verified TLS handshake with url and is
// refused for want of a token: the certificate was the one c trusts.
func answersUnauthorized(c *http.Client, url string) bool {
	res, err := scrape(c, url, "")
	return err == nil && res.code == http.StatusUnauthorized
}

// testCA issues serving certificates for 127.0.0.1.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return testCA{cert: cert, key: key}
}

// writeServingPair writes a certificate for 127.0.0.1 it issued and its key into dir under the
// names a kubernetes.io/tls Secret mounts them, each file replaced in one rename.
func (ca testCA) writeServingPair(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "aicr-operator-metrics"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	// The key first: the watcher reloads on the certificate's change and needs the pair.
	writeAtomically(t, filepath.Join(dir, corev1.TLSPrivateKeyKey), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	writeAtomically(t, filepath.Join(dir, corev1.TLSCertKey), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// client trusts only ca.
func (ca testCA) client() *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}}
}

func writeAtomically(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, data, 0o600))
	require.NoError(t, os.Rename(tmp, path))
}
