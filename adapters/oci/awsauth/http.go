package awsauth

import (
	"net"
	"net/http"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// Timeouts of every AWS call the operator makes (STS, ECR and the credential endpoints of the
// default chain). The SDK retries a call that timed out (three attempts in all with its
// standard retryer), so a hung endpoint fails a call after about three RequestTimeouts.
const (
	// DialTimeout bounds opening a TCP connection.
	DialTimeout = 10 * time.Second
	// TLSHandshakeTimeout bounds the TLS handshake.
	TLSHandshakeTimeout = 10 * time.Second
	// RequestTimeout bounds one attempt of a call as a whole.
	RequestTimeout = 30 * time.Second
)

// NewHTTPClient returns the SDK's HTTP client with DialTimeout, TLSHandshakeTimeout and an
// overall timeout of requestTimeout on each attempt (also the response-header timeout).
func NewHTTPClient(requestTimeout time.Duration) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTimeout(requestTimeout).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = DialTimeout }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout, t.ResponseHeaderTimeout = TLSHandshakeTimeout, requestTimeout
		})
}
