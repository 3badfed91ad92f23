package awsauth

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/nvidia/aicr-operator/ports"
)

// The pull role session the operator requests for Argo CD's ECR token.
const (
	// PullRoleSessionName names the pull role's sessions (it shows in CloudTrail).
	PullRoleSessionName = "aicr-operator-argocd-pull"
	// PullRoleSessionDuration is STS's shortest session. The session signs
	// one ecr:GetAuthorizationToken call and is then dropped; Argo CD's token
	// lives until the expiresAt ECR returns with it (12 hours), which the
	// refresh schedule follows (ECR refreshes at half a token's lifetime when
	// that is sooner than ECRRefreshInterval). No session can cover the 6-hour
	// interval anyway: assuming a role from IRSA or Pod Identity credentials is
	// role chaining, which STS caps at one hour.
	PullRoleSessionDuration = 15 * time.Minute
)

// AssumedRole is the AWSCredentialSource of a role assumed with STS
// AssumeRole from Source's credentials, signed with Signature Version 4 at
// the Clock's time. The aws provider uses it for Argo CD's pull-only ECR
// token: an ECR token carries the permissions of the identity that requested
// it. Errors wrap ports.ErrUnauthorized when STS denies the call (the
// operator's identity may not assume the role, or the role's trust policy
// does not name it) and ports.ErrCredentialsUnavailable when no role or no
// source identity is configured; anything else is transient.
type AssumedRole struct {
	HTTP    *http.Client
	Region  string
	RoleARN string
	// SessionName is the role session name (empty: PullRoleSessionName).
	SessionName string
	// Duration is the session duration (zero: PullRoleSessionDuration).
	Duration time.Duration
	// Endpoint is the STS endpoint (empty: https://sts.<Region>.amazonaws.com).
	Endpoint string
	// Source provides the credentials that assume the role (the operator's own).
	Source AWSCredentialSource
	Clock  ports.Clock
}

var _ AWSCredentialSource = AssumedRole{}

// AWSCredentials assumes the role and returns the session's credentials.
func (a AssumedRole) AWSCredentials(ctx context.Context) (AWSCredentials, error) {
	if a.RoleARN == "" {
		return AWSCredentials{}, fmt.Errorf("assume role: no role ARN: %w", ports.ErrCredentialsUnavailable)
	}
	src, err := a.Source.AWSCredentials(ctx)
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("assume role %s: %w", a.RoleARN, err)
	}
	endpoint, name, dur := a.Endpoint, a.SessionName, a.Duration
	if endpoint == "" {
		endpoint = "https://sts." + a.Region + ".amazonaws.com"
	}
	if name == "" {
		name = PullRoleSessionName
	}
	if dur == 0 {
		dur = PullRoleSessionDuration
	}
	form := url.Values{
		"Action": {"AssumeRole"}, "Version": {"2011-06-15"}, "RoleArn": {a.RoleARN},
		"RoleSessionName": {name}, "DurationSeconds": {strconv.Itoa(int(dur / time.Second))},
	}
	body := []byte(form.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("build STS request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	signSigV4(req, body, src, a.Region, "sts", a.Clock.Now())
	var out struct {
		Credentials struct {
			AccessKeyID     string `xml:"AccessKeyId"`
			SecretAccessKey string `xml:"SecretAccessKey"`
			SessionToken    string `xml:"SessionToken"`
		} `xml:"AssumeRoleResult>Credentials"`
	}
	if err := do(a.HTTP, req, func(raw []byte) error { return xml.Unmarshal(raw, &out) }); err != nil {
		return AWSCredentials{}, fmt.Errorf("assume role %s: %w", a.RoleARN, err)
	}
	c := out.Credentials
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return AWSCredentials{}, fmt.Errorf("assume role %s: no credentials in the answer: %w", a.RoleARN, ports.ErrCredentialsUnavailable)
	}
	return AWSCredentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}, nil
}
