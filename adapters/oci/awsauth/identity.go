package awsauth

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/NVIDIA/aicr/ports"
)

// The pull role session the operator requests for Argo CD's ECR token.
const (
	// PullRoleSessionName names the pull role's sessions (it shows in CloudTrail).
	PullRoleSessionName = "aicr-operator-argocd-pull"
	// PullRoleSessionDuration is STS's shortest session. A session signs the
	// ecr:GetAuthorizationToken calls of one refresh (retries included) and
	// expires long before the next one; Argo CD's token lives until the
	// expiresAt ECR returns with it (12 hours), which the refresh schedule
	// follows. No session could cover the 6-hour refresh interval anyway:
	// assuming a role from IRSA or Pod Identity credentials is role chaining,
	// which STS caps at one hour.
	PullRoleSessionDuration = 15 * time.Minute
)

// Identity is an AWS identity: the SDK configuration (region, credentials,
// endpoints, retries) its calls are made with.
type Identity struct {
	// Config is the SDK configuration; tests set BaseEndpoint and static credentials.
	Config aws.Config
	// WebIdentityRole is the IAM role the credentials come from when the default
	// chain uses a web identity token (IRSA's AWS_ROLE_ARN), empty otherwise.
	WebIdentityRole string
}

// LoadIdentity loads the operator's own identity for reg with the SDK's default
// credential chain: environment keys, IRSA (AWS_ROLE_ARN and
// AWS_WEB_IDENTITY_TOKEN_FILE), the shared config, EKS Pod Identity
// (AWS_CONTAINER_CREDENTIALS_FULL_URI and AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE)
// and the instance role, with the ECR API's FIPS endpoint for a FIPS registry. Every call
// (STS, ECR, credential endpoints) goes through NewHTTPClient(RequestTimeout).
// It does not fail: a configuration the SDK cannot load yields an identity whose
// every call fails with ports.ErrCredentialsUnavailable, so the runtime stalls
// with the cause instead of the operator not starting.
func LoadIdentity(ctx context.Context, reg Registry) Identity {
	opts := []func(*config.LoadOptions) error{config.WithRegion(reg.Region), config.WithHTTPClient(NewHTTPClient(RequestTimeout))}
	if reg.FIPS {
		opts = append(opts, config.WithUseFIPSEndpoint(aws.FIPSEndpointStateEnabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		err = fmt.Errorf("load AWS configuration: %w: %w", ports.ErrCredentialsUnavailable, err)
		return Identity{Config: aws.Config{Region: reg.Region, Credentials: failing{err: err}, HTTPClient: NewHTTPClient(RequestTimeout)}}
	}
	id := Identity{Config: cfg}
	for _, src := range cfg.ConfigSources {
		if env, ok := src.(config.EnvConfig); ok && !env.Credentials.HasKeys() && env.WebIdentityTokenFilePath != "" {
			id.WebIdentityRole = env.RoleARN
		}
	}
	return id
}

// AssumeRole returns the identity of roleARN assumed from id with STS
// AssumeRole (session PullRoleSessionName for PullRoleSessionDuration), cached
// until the session expires. An empty roleARN wraps
// ports.ErrCredentialsUnavailable; a denial by STS (id may not assume the role,
// or the role's trust policy does not name id) fails the calls made with the
// identity with ports.ErrUnauthorized.
func (id Identity) AssumeRole(roleARN string) (Identity, error) {
	if roleARN == "" {
		return Identity{}, fmt.Errorf("assume role: no role ARN: %w", ports.ErrCredentialsUnavailable)
	}
	cfg := id.Config.Copy()
	if cfg.Credentials == nil { // the SDK would send the call unsigned
		cfg.Credentials = failing{err: fmt.Errorf("assume role %s: no source credentials: %w", roleARN, ports.ErrCredentialsUnavailable)}
		return Identity{Config: cfg}, nil
	}
	provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(id.Config), roleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName, o.Duration = PullRoleSessionName, PullRoleSessionDuration
	})
	cfg.Credentials = aws.NewCredentialsCache(assumedRole{provider: provider, roleARN: roleARN})
	return Identity{Config: cfg}, nil
}

// assumedRole names the role in the errors of its provider.
type assumedRole struct {
	provider aws.CredentialsProvider
	roleARN  string
}

// Retrieve assumes the role.
func (a assumedRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := a.provider.Retrieve(ctx)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("assume role %s: %w", a.roleARN, err)
	}
	return c, nil
}

// failing is the credentials provider of an identity the SDK could not load.
type failing struct{ err error }

// Retrieve returns the load error.
func (f failing) Retrieve(context.Context) (aws.Credentials, error) { return aws.Credentials{}, f.err }
