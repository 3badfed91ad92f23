package awsauth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
)

// TestParseRegistry accepts the hosts amazon-ecr-credential-helper accepts, in every
// partition, and reads the account and region from them.
func TestParseRegistry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repository string
		want       awsauth.Registry // zero: not ECR
	}{
		{"oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.eu-west-1.amazonaws.com", Account: "123456789012", Region: "eu-west-1"}},
		{"123456789012.dkr.ecr.us-east-1.amazonaws.com",
			awsauth.Registry{Host: "123456789012.dkr.ecr.us-east-1.amazonaws.com", Account: "123456789012", Region: "us-east-1"}},
		{"oci://123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com/aicr", awsauth.Registry{
			Host: "123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com", Account: "123456789012", Region: "us-gov-west-1", FIPS: true}},
		{"oci://123456789012.dkr.ecr-fips.us-east-2.amazonaws.com/aicr", awsauth.Registry{
			Host: "123456789012.dkr.ecr-fips.us-east-2.amazonaws.com", Account: "123456789012", Region: "us-east-2", FIPS: true}},
		{"oci://123456789012.dkr.ecr.us-gov-east-1.amazonaws.com/a/b",
			awsauth.Registry{Host: "123456789012.dkr.ecr.us-gov-east-1.amazonaws.com", Account: "123456789012", Region: "us-gov-east-1"}},
		{"oci://123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn", Account: "123456789012", Region: "cn-north-1"}},
		{"oci://123456789012.dkr-ecr.us-east-1.on.aws/aicr",
			awsauth.Registry{Host: "123456789012.dkr-ecr.us-east-1.on.aws", Account: "123456789012", Region: "us-east-1"}},
		{"oci://123456789012.dkr-ecr.cn-northwest-1.on.amazonwebservices.com.cn/aicr", awsauth.Registry{
			Host: "123456789012.dkr-ecr.cn-northwest-1.on.amazonwebservices.com.cn", Account: "123456789012", Region: "cn-northwest-1"}},
		{"oci://123456789012.dkr.ecr.eusc-de-east-1.amazonaws.eu/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.eusc-de-east-1.amazonaws.eu", Account: "123456789012", Region: "eusc-de-east-1"}},
		{"oci://123456789012.dkr.ecr.us-isob-east-1.sc2s.sgov.gov/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.us-isob-east-1.sc2s.sgov.gov", Account: "123456789012", Region: "us-isob-east-1"}},
		{"oci://123456789012.dkr.ecr.us-iso-east-1.c2s.ic.gov/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.us-iso-east-1.c2s.ic.gov", Account: "123456789012", Region: "us-iso-east-1"}},
		{"oci://123456789012.dkr.ecr.eu-isoe-west-1.cloud.adc-e.uk/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.eu-isoe-west-1.cloud.adc-e.uk", Account: "123456789012", Region: "eu-isoe-west-1"}},
		{"oci://123456789012.dkr.ecr.us-isof-south-1.csp.hci.ic.gov/aicr",
			awsauth.Registry{Host: "123456789012.dkr.ecr.us-isof-south-1.csp.hci.ic.gov", Account: "123456789012", Region: "us-isof-south-1"}},
		{"oci://ghcr.io/nvidia/aicr", awsauth.Registry{}},
		{"oci://public.ecr.aws/nvidia/aicr", awsauth.Registry{}},
		{"oci://12345.dkr.ecr.eu-west-1.amazonaws.com/aicr", awsauth.Registry{}},
		{"oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com.evil.example/aicr", awsauth.Registry{}},
		{"oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com:443/aicr", awsauth.Registry{}},
		{"oci://123456789012.dkr.ecr-fips.eu-west-1.example.com/aicr", awsauth.Registry{}},
		{"oci://registry.aicr:5000/aicr", awsauth.Registry{}},
	}
	for _, tt := range tests {
		t.Run(tt.repository, func(t *testing.T) {
			t.Parallel()
			got, err := awsauth.ParseRegistry(tt.repository)
			if tt.want == (awsauth.Registry{}) {
				require.ErrorIs(t, err, awsauth.ErrNotECR)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
