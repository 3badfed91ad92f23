package awsauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/ports"
)

// AWSCredentialSource provides the operator's AWS credentials.
type AWSCredentialSource interface {
	// AWSCredentials returns current credentials; errors wrap
	// ports.ErrCredentialsUnavailable when no identity is configured.
	AWSCredentials(ctx context.Context) (AWSCredentials, error)
}

// PodIdentity reads credentials from the EKS Pod Identity agent
// (AWS_CONTAINER_CREDENTIALS_FULL_URI with the token of
// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, both injected by EKS).
type PodIdentity struct {
	HTTP      *http.Client
	URI       string
	TokenFile string
}

// PodIdentityFromEnv returns the Pod Identity source the EKS environment configures.
func PodIdentityFromEnv(hc *http.Client) PodIdentity {
	return PodIdentity{HTTP: hc, URI: os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), TokenFile: os.Getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")}
}

// AWSCredentials fetches credentials from the Pod Identity agent.
func (p PodIdentity) AWSCredentials(ctx context.Context) (AWSCredentials, error) {
	if p.URI == "" || p.TokenFile == "" {
		return AWSCredentials{}, fmt.Errorf("find EKS Pod Identity: %w", ports.ErrCredentialsUnavailable)
	}
	tok, err := os.ReadFile(p.TokenFile)
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("read pod identity token: %w: %w", ports.ErrCredentialsUnavailable, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URI, nil)
	if err != nil {
		return AWSCredentials{}, fmt.Errorf("build pod identity request: %w", err)
	}
	req.Header.Set("Authorization", strings.TrimSpace(string(tok)))
	var out struct{ AccessKeyID, SecretAccessKey, Token string }
	if err := doJSON(p.HTTP, req, &out); err != nil {
		return AWSCredentials{}, fmt.Errorf("get pod identity credentials: %w", err)
	}
	return AWSCredentials{AccessKeyID: out.AccessKeyID, SecretAccessKey: out.SecretAccessKey, SessionToken: out.Token}, nil
}

// ECRAPI is the oci.TokenSource over ECR's GetAuthorizationToken HTTP API,
// signed with Signature Version 4 at the Clock's time.
type ECRAPI struct {
	HTTP        *http.Client
	Region      string
	Endpoint    string // empty: https://api.ecr.<region>.amazonaws.com
	Credentials AWSCredentialSource
	Clock       ports.Clock
}

var _ oci.TokenSource = ECRAPI{}

// Token calls GetAuthorizationToken and decodes the login it returns.
func (e ECRAPI) Token(ctx context.Context) (oci.ECRToken, error) {
	creds, err := e.Credentials.AWSCredentials(ctx)
	if err != nil {
		return oci.ECRToken{}, err
	}
	endpoint := e.Endpoint
	if endpoint == "" {
		endpoint = "https://api.ecr." + e.Region + ".amazonaws.com"
	}
	body := []byte("{}")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return oci.ECRToken{}, fmt.Errorf("build ECR request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken")
	signSigV4(req, body, creds, e.Region, "ecr", e.Clock.Now())
	var out struct {
		AuthorizationData []struct {
			AuthorizationToken string  `json:"authorizationToken"`
			ExpiresAt          float64 `json:"expiresAt"`
		} `json:"authorizationData"`
	}
	if err = doJSON(e.HTTP, req, &out); err != nil {
		return oci.ECRToken{}, fmt.Errorf("get ECR authorization token: %w", err)
	}
	if len(out.AuthorizationData) == 0 {
		return oci.ECRToken{}, fmt.Errorf("get ECR authorization token: empty answer: %w", ports.ErrCredentialsUnavailable)
	}
	d := out.AuthorizationData[0]
	login, err := oci.DecodeECRAuthorizationToken(d.AuthorizationToken)
	if err != nil {
		return oci.ECRToken{}, err
	}
	return oci.ECRToken{Login: login, ExpiresAt: time.Unix(int64(d.ExpiresAt), 0).UTC()}, nil
}

// doJSON sends req and decodes a 200 answer into out; 401 and 403 wrap
// ports.ErrUnauthorized, other statuses are transient.
func doJSON(hc *http.Client, req *http.Request, out any) error {
	return do(hc, req, func(raw []byte) error { return json.Unmarshal(raw, out) })
}

// do sends req and decodes a 200 answer with decode; 401, 403 and an
// AccessDenied or InvalidIdentityToken 400 wrap ports.ErrUnauthorized, other
// statuses are transient.
func do(hc *http.Client, req *http.Request, decode func([]byte) error) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("send %s: %w", req.URL.Host, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read %s: %w", req.URL.Host, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden,
		resp.StatusCode == http.StatusBadRequest &&
			(bytes.Contains(raw, []byte("AccessDenied")) || bytes.Contains(raw, []byte("InvalidIdentityToken"))):
		return fmt.Errorf("call %s: status %d: %w", req.URL.Host, resp.StatusCode, ports.ErrUnauthorized)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("call %s: status %d", req.URL.Host, resp.StatusCode)
	}
	if err := decode(raw); err != nil {
		return fmt.Errorf("decode %s answer: %w", req.URL.Host, err)
	}
	return nil
}
