package awsauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/NVIDIA/aicr/ports"
)

// apiErrors maps the AWS API error codes of ECR, STS and the credential
// providers to the ports' sentinels. A code not listed (throttling such as
// ThrottlingException, TooManyRequestsException or RequestLimitExceeded,
// ServerException, ServiceUnavailable, ...) is transient: the SDK retries it,
// then the ECR refresher's backoff does.
var apiErrors = map[string]error{
	// ECR: the identity lacks ecr:GetAuthorizationToken.
	"AccessDeniedException": ports.ErrUnauthorized,
	// STS AssumeRole: the identity may not assume the role, or its trust policy does not name it.
	"AccessDenied": ports.ErrUnauthorized,
	// The access key is unknown to AWS (ECR's and STS's spellings).
	"UnrecognizedClientException": ports.ErrUnauthorized,
	"InvalidClientTokenId":        ports.ErrUnauthorized,
	// The session token or the web identity token expired.
	"ExpiredToken":          ports.ErrUnauthorized,
	"ExpiredTokenException": ports.ErrUnauthorized,
	// The web identity token (IRSA) was refused.
	"InvalidIdentityToken": ports.ErrUnauthorized,
	"IDPRejectedClaim":     ports.ErrUnauthorized,
	// The request's signature was refused (a wrong secret key).
	"InvalidSignatureException":  ports.ErrUnauthorized,
	"SignatureDoesNotMatch":      ports.ErrUnauthorized,
	"IncompleteSignature":        ports.ErrUnauthorized,
	"MissingAuthenticationToken": ports.ErrUnauthorized,
	// STS is not enabled in the region for the account.
	"RegionDisabledException": ports.ErrCredentialsUnavailable,
	// ECR: the registry's repository does not exist.
	"RepositoryNotFoundException": ports.ErrArtifactNotFound,
}

// httpStatus is an error answer of an AWS API (smithy-go's and the SDK's ResponseError).
type httpStatus interface{ HTTPStatusCode() int }

// apiError wraps err with the sentinel of its AWS API error code, or of its
// HTTP status when the answer has no code (401 and 403 are ports.ErrUnauthorized);
// anything else is returned as is (transient).
func apiError(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		if sentinel, ok := apiErrors[api.ErrorCode()]; ok {
			return fmt.Errorf("%w: %w", sentinel, err)
		}
	}
	var resp httpStatus
	if errors.As(err, &resp) &&
		(resp.HTTPStatusCode() == http.StatusUnauthorized || resp.HTTPStatusCode() == http.StatusForbidden) {
		return fmt.Errorf("%w: %w", ports.ErrUnauthorized, err)
	}
	return err
}

// credentialsError classifies a failure to obtain credentials: an AWS API
// error as apiError does; a transport failure, a cancellation or an answer
// without a code is transient; anything else (no identity configured, a token
// file missing) wraps ports.ErrCredentialsUnavailable.
func credentialsError(err error) error {
	var (
		api  smithy.APIError
		send *smithyhttp.RequestSendError
		resp httpStatus
		nete net.Error
	)
	switch {
	case errors.Is(err, ports.ErrCredentialsUnavailable):
		return err
	case errors.As(err, &api), errors.As(err, &resp):
		return apiError(err)
	case errors.As(err, &send), errors.As(err, &nete),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%w: %w", ports.ErrCredentialsUnavailable, err)
}
