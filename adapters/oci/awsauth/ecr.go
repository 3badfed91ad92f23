package awsauth

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ecr"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// ECRAPI is the oci.TokenSource over ECR's GetAuthorizationToken, called with
// an Identity (the operator's own for its pushes, the assumed pull role for
// Argo CD's token).
type ECRAPI struct {
	credentials aws.CredentialsProvider
	client      *ecr.Client
}

var _ oci.TokenSource = ECRAPI{}

// NewECRAPI returns the token source of id.
func NewECRAPI(id Identity) ECRAPI {
	return ECRAPI{credentials: id.Config.Credentials, client: ecr.NewFromConfig(id.Config)}
}

// Token calls GetAuthorizationToken and decodes the login it returns. Errors
// wrap ports.ErrCredentialsUnavailable when the identity has no credentials
// and ports.ErrUnauthorized when AWS denies it (apiErrors); anything else is
// transient.
func (e ECRAPI) Token(ctx context.Context) (oci.ECRToken, error) {
	if e.credentials == nil {
		return oci.ECRToken{}, fmt.Errorf("get AWS credentials: none configured: %w", ports.ErrCredentialsUnavailable)
	}
	if _, err := e.credentials.Retrieve(ctx); err != nil {
		return oci.ECRToken{}, fmt.Errorf("get AWS credentials: %w", credentialsError(err))
	}
	out, err := e.client.GetAuthorizationToken(ctx, &ecr.GetAuthorizationTokenInput{})
	if err != nil {
		return oci.ECRToken{}, fmt.Errorf("get ECR authorization token: %w", apiError(err))
	}
	if len(out.AuthorizationData) == 0 {
		return oci.ECRToken{}, fmt.Errorf("get ECR authorization token: empty answer: %w", ports.ErrCredentialsUnavailable)
	}
	d := out.AuthorizationData[0]
	login, err := oci.DecodeECRAuthorizationToken(aws.ToString(d.AuthorizationToken))
	if err != nil {
		return oci.ECRToken{}, err
	}
	return oci.ECRToken{Login: login, ExpiresAt: aws.ToTime(d.ExpiresAt).UTC()}, nil
}
