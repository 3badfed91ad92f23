package awsauth

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/nvidia/aicr-operator/ports"
)

// IRSA exchanges the projected service account token for role credentials
// with STS AssumeRoleWithWebIdentity (IAM Roles for Service Accounts; EKS
// injects AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE).
type IRSA struct {
	HTTP      *http.Client
	RoleARN   string
	TokenFile string
	// Endpoint is the STS endpoint (empty: https://sts.<Region>.amazonaws.com).
	Endpoint string
	Region   string
}

// IRSAFromEnv returns the IRSA source the EKS environment configures.
func IRSAFromEnv(hc *http.Client, region string) IRSA {
	return IRSA{HTTP: hc, RoleARN: os.Getenv("AWS_ROLE_ARN"), TokenFile: os.Getenv("AWS_WEB_IDENTITY_TOKEN_FILE"), Region: region}
}

// AWSCredentials assumes the role with the web identity token (an unsigned call).
func (i IRSA) AWSCredentials(ctx context.Context) (AWSCredentials, error) {
	if i.RoleARN == "" || i.TokenFile == "" {
		return AWSCredentials{}, fmt.Errorf("find IRSA role: %w", ports.ErrCredentialsUnavailable)
	}
	tok, err := os.ReadFile(i.TokenFile)
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("read web identity token: %w: %w", ports.ErrCredentialsUnavailable, err)
	}
	endpoint := i.Endpoint
	if endpoint == "" {
		endpoint = "https://sts." + i.Region + ".amazonaws.com"
	}
	form := url.Values{
		"Action": {"AssumeRoleWithWebIdentity"}, "Version": {"2011-06-15"}, "RoleArn": {i.RoleARN},
		"RoleSessionName": {"aicr-operator"}, "WebIdentityToken": {strings.TrimSpace(string(tok))},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", strings.NewReader(form.Encode()))
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("build STS request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var out struct {
		Credentials struct {
			AccessKeyID     string `xml:"AccessKeyId"`
			SecretAccessKey string `xml:"SecretAccessKey"`
			SessionToken    string `xml:"SessionToken"`
		} `xml:"AssumeRoleWithWebIdentityResult>Credentials"`
	}
	if err := do(i.HTTP, req, func(raw []byte) error { return xml.Unmarshal(raw, &out) }); err != nil {
		return AWSCredentials{}, fmt.Errorf("assume role %s: %w", i.RoleARN, err)
	}
	c := out.Credentials
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return AWSCredentials{}, fmt.Errorf("assume role %s: no credentials in the answer: %w", i.RoleARN, ports.ErrCredentialsUnavailable)
	}
	return AWSCredentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}, nil
}
