package awsauth

import (
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example of the AWS Signature Version 4 documentation (IAM ListUsers).
func TestSignSigV4_AWSDocumentationExample(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	assert.Equal(t, "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9",
		hex.EncodeToString(sigV4SigningKey(secret, "20150830", "us-east-1", "iam")))

	req, err := http.NewRequest(http.MethodGet, "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", nil)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	signSigV4(req, nil, AWSCredentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: secret}, "us-east-1", "iam",
		time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC))
	assert.Equal(t, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "+
		"SignedHeaders=content-type;host;x-amz-date, "+
		"Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7", req.Header.Get("Authorization"))
}
