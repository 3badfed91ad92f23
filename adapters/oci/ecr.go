package oci

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/nvidia/aicr-operator/ports"
)

// ECR refresh cadence (REG-1) and retry bounds after a failed refresh.
const (
	// ECRRefreshInterval is how often a fresh token is written, well inside
	// the 12 hours an ECR token lives.
	ECRRefreshInterval = 6 * time.Hour
	// ECRRetryMin is the first wait after a failed refresh; it doubles per failure.
	ECRRetryMin = 30 * time.Second
	// ECRRetryMax bounds the wait between failed refreshes.
	ECRRetryMax = 10 * time.Minute
)

// ECRToken is an ECR authorization token.
type ECRToken struct {
	Login     Login
	ExpiresAt time.Time
}

// TokenSource obtains ECR authorization tokens (ecr:GetAuthorizationToken
// with the operator's EKS Pod Identity or IRSA identity). Errors wrap
// ports.ErrUnauthorized when AWS denies the identity and
// ports.ErrCredentialsUnavailable when no identity is configured; anything
// else is a transient outage.
type TokenSource interface {
	// Token returns a fresh token.
	Token(ctx context.Context) (ECRToken, error)
}

// RepoCredsWriter writes a registry login into Argo CD's repo-creds Secret.
type RepoCredsWriter interface {
	// WriteRepoCreds stores login; writing the same login again is a no-op.
	WriteRepoCreds(ctx context.Context, login Login) error
}

// ECR is the aws provider: it writes a fresh ECR token into Argo CD's
// repo-creds Secret at start and every ECRRefreshInterval, timed by the Clock
// port, and serves the same token to the operator's own registry client.
type ECR struct {
	tokens TokenSource
	writer RepoCredsWriter
	clock  ports.Clock

	mu          sync.Mutex
	token       *ECRToken
	refreshed   time.Time
	failures    int
	nextAttempt time.Time
	lastErr     error
}

var _ CredentialProvider = (*ECR)(nil)

// NewECR returns the aws provider.
func NewECR(tokens TokenSource, writer RepoCredsWriter, clock ports.Clock) *ECR {
	return &ECR{tokens: tokens, writer: writer, clock: clock}
}

// Refresh fetches and writes a token when one is due (none yet, the last is
// ECRRefreshInterval old, or a failed attempt's backoff passed) and returns
// how long until the next one is due. A failure is classified: the AWS
// identity denied wraps ports.ErrUnauthorized; with no token yet
// ports.ErrCredentialsUnavailable; with an expired token
// ports.ErrCredentialsStale; otherwise (a valid token is still in place) the
// error is transient and the refresh is retried with a doubling backoff.
func (e *ECR) Refresh(ctx context.Context) (time.Duration, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	if e.failures > 0 && now.Before(e.nextAttempt) {
		return e.nextAttempt.Sub(now), e.lastErr
	}
	if e.failures == 0 && e.token != nil && now.Before(e.refreshed.Add(ECRRefreshInterval)) {
		return e.refreshed.Add(ECRRefreshInterval).Sub(now), nil
	}
	tok, err := e.tokens.Token(ctx)
	if err == nil {
		err = e.writer.WriteRepoCreds(ctx, tok.Login)
	}
	if err != nil {
		e.failures++
		wait := min(ECRRetryMin<<min(e.failures-1, 10), ECRRetryMax)
		e.nextAttempt, e.lastErr = now.Add(wait), e.classify(now, err)
		return wait, e.lastErr
	}
	e.token, e.refreshed, e.failures, e.lastErr = &tok, now, 0, nil
	return ECRRefreshInterval, nil
}

func (e *ECR) classify(now time.Time, err error) error {
	switch {
	case errors.Is(err, ports.ErrUnauthorized), errors.Is(err, ports.ErrCredentialsUnavailable):
		return fmt.Errorf("refresh ECR token: %w", err)
	case e.token == nil:
		return fmt.Errorf("refresh ECR token: %w: %w", ports.ErrCredentialsUnavailable, err)
	case !now.Before(e.token.ExpiresAt):
		return fmt.Errorf("refresh ECR token: %w: %w", ports.ErrCredentialsStale, err)
	}
	return fmt.Errorf("refresh ECR token, retrying after a transient failure: %w", err)
}

// Credential returns the current token, refreshing it first when due. A
// refresh failure while the token is still valid does not fail the call.
func (e *ECR) Credential(ctx context.Context, _ string) (auth.Credential, error) {
	_, err := e.Refresh(ctx)
	e.mu.Lock()
	tok, now := e.token, e.clock.Now()
	e.mu.Unlock()
	if tok != nil && now.Before(tok.ExpiresAt) {
		return auth.Credential{Username: tok.Login.Username, Password: tok.Login.Password}, nil
	}
	if err != nil {
		return auth.EmptyCredential, err
	}
	return auth.EmptyCredential, fmt.Errorf("use ECR token: %w", ports.ErrCredentialsStale)
}

// Run refreshes until ctx ends, waiting between refreshes with after
// (time.After in production; tests pass a channel they control).
func (e *ECR) Run(ctx context.Context, after func(time.Duration) <-chan time.Time) error {
	for {
		wait, _ := e.Refresh(ctx) // a failure is retried after wait; Credential surfaces it
		select {
		case <-ctx.Done():
			return nil
		case <-after(wait):
		}
	}
}

// DecodeECRAuthorizationToken decodes the authorizationToken of ECR's
// GetAuthorizationToken response (base64 of "AWS:<password>").
func DecodeECRAuthorizationToken(token string) (Login, error) {
	dec, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return Login{}, fmt.Errorf("decode ECR token: %w: %w", ports.ErrCredentialsUnavailable, err)
	}
	user, pass, ok := strings.Cut(string(dec), ":")
	if !ok || user == "" || pass == "" {
		return Login{}, fmt.Errorf("decode ECR token: %w", ports.ErrCredentialsUnavailable)
	}
	return Login{Username: user, Password: pass}, nil
}
