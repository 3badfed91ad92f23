package awsauth_test

import (
	"context"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
)

// TestEveryAWSCallHasConnectTLSAndOverallTimeouts: the identity the operator loads sends its
// STS and ECR calls through a client with a dial, a TLS-handshake, a response-header and an
// overall timeout.
func TestEveryAWSCallHasConnectTLSAndOverallTimeouts(t *testing.T) {
	t.Parallel()
	id := awsauth.LoadIdentity(context.Background(), awsauth.Registry{Region: "eu-west-1"})
	c, ok := id.Config.HTTPClient.(*awshttp.BuildableClient)
	require.True(t, ok, "the SDK's buildable client, got %T", id.Config.HTTPClient)
	assert.Equal(t, awsauth.RequestTimeout, c.GetTimeout())
	assert.Equal(t, awsauth.DialTimeout, c.GetDialer().Timeout)
	assert.Equal(t, awsauth.TLSHandshakeTimeout, c.GetTransport().TLSHandshakeTimeout)
	assert.Equal(t, awsauth.RequestTimeout, c.GetTransport().ResponseHeaderTimeout)

	short := awsauth.NewHTTPClient(time.Second)
	assert.Equal(t, time.Second, short.GetTimeout())
	assert.Equal(t, time.Second, short.GetTransport().ResponseHeaderTimeout)
}
