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

	"github.com/NVIDIA/aicr/ports"
)

// ECR refresh cadence (REG-1) and retry bounds after a failed refresh.
const (
	// ECRRefreshInterval is how often a fresh token is fetched (and Argo CD's
	// written), well inside the 12 hours an ECR token lives.
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
// with an AWS identity: the operator's EKS Pod Identity or IRSA identity for
// its own pushes, the pull role it assumes for Argo CD's token). Errors wrap
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

// ECR is the aws provider. It keeps two tokens apart: the pull token,
// requested as the pull-only role (pull TokenSource), is written into Argo
// CD's repo-creds Secret and never used by the operator; the push token,
// requested as the operator's own identity (push TokenSource), is served to
// the operator's registry client and never written anywhere. Each is fetched
// at start and every ECRRefreshInterval (sooner when ECR returns a token
// living less than twice that), timed by the Clock port.
type ECR struct {
	clock ports.Clock

	mu   sync.Mutex
	push ecrLane
	pull ecrLane
}

var _ CredentialProvider = (*ECR)(nil)

// NewECR returns the aws provider: push requests the operator's own token,
// pull requests Argo CD's token, which writer stores in the repo-creds Secret.
func NewECR(push, pull TokenSource, writer RepoCredsWriter, clock ports.Clock) *ECR {
	return &ECR{
		clock: clock,
		push:  ecrLane{what: "the operator's ECR push token", tokens: push},
		pull:  ecrLane{what: "Argo CD's ECR pull token", tokens: pull, write: writer.WriteRepoCreds},
	}
}

// Refresh fetches (and, for Argo CD's token, writes) each token that is due
// (none yet, the last one's refresh interval passed, or a failed attempt's
// backoff passed) and returns how long until the next one is due. A failure
// is classified per token: the AWS identity denied wraps
// ports.ErrUnauthorized; with no token yet ports.ErrCredentialsUnavailable;
// with an expired token ports.ErrCredentialsStale; otherwise (a valid token
// is still in place) the error is transient and the refresh is retried with a
// doubling backoff. The errors of both tokens are joined.
//
// The two tokens are refreshed side by side, and no lock is held across a call to AWS or the
// API server: one caller at a time fetches a token, and a caller that finds that token's fetch
// in flight returns at once while the token it has is valid (so a hung AWS endpoint never
// blocks a reader of the cached token), or waits for the fetch, or for ctx, when there is no
// valid token to serve.
func (e *ECR) Refresh(ctx context.Context) (time.Duration, error) {
	var pullWait time.Duration
	var pullErr error
	var pullPanic any
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() { pullPanic = recover() }() // re-raised in the caller's goroutine, which may recover it
		pullWait, pullErr = e.refresh(ctx, &e.pull)
	})
	pushWait, pushErr := e.refresh(ctx, &e.push)
	wg.Wait()
	if pullPanic != nil {
		panic(pullPanic)
	}
	return min(pullWait, pushWait), errors.Join(pullErr, pushErr)
}

// refresh fetches l's token when it is due, holding the mutex only to read and record l's state.
func (e *ECR) refresh(ctx context.Context, l *ecrLane) (time.Duration, error) {
	e.mu.Lock()
	now := e.clock.Now()
	if fetching := l.fetching; fetching != nil {
		valid := l.token != nil && now.Before(l.token.ExpiresAt)
		e.mu.Unlock()
		if valid {
			return ECRRetryMin, nil
		}
		return e.await(ctx, l, fetching)
	}
	if wait, due, err := l.schedule(now); !due {
		e.mu.Unlock()
		return wait, err
	}
	fetching := make(chan struct{})
	l.fetching = fetching
	e.mu.Unlock()
	defer func() { // after the result is recorded, or on a panic of the token source
		e.mu.Lock()
		l.fetching = nil
		e.mu.Unlock()
		close(fetching)
	}()

	tok, err := l.tokens.Token(ctx)
	if err == nil && l.write != nil {
		err = l.write(ctx, tok.Login)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	return l.record(now, tok, err)
}

// await waits for the fetch in flight of l (another caller's) or for ctx, and returns what
// the fetch left.
func (e *ECR) await(ctx context.Context, l *ecrLane, fetching <-chan struct{}) (time.Duration, error) {
	select {
	case <-fetching:
	case <-ctx.Done():
		e.mu.Lock()
		defer e.mu.Unlock()
		return ECRRetryMin, l.classify(e.clock.Now(), fmt.Errorf("wait for the refresh in flight: %w", ctx.Err()))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	wait, _, err := l.schedule(e.clock.Now())
	return wait, err
}

// Credential returns the operator's own push token, refreshing due tokens
// first. A refresh failure while a token is still valid does not fail the
// call. While Argo CD holds no valid pull token (never obtained, or expired
// and not refreshed) the pull token's failure is returned even though the
// push token works: Argo CD could not pull what the operator pushes, and the
// stall names the cause (an AssumeRole denial is ports.ErrUnauthorized).
func (e *ECR) Credential(ctx context.Context, _ string) (auth.Credential, error) {
	_, err := e.Refresh(ctx)
	e.mu.Lock()
	tok, pull, pullErr, now := e.push.token, e.pull.token, e.pull.lastErr, e.clock.Now()
	e.mu.Unlock()
	if pullErr != nil && (pull == nil || !now.Before(pull.ExpiresAt)) {
		if !isCredentialSentinel(pullErr) {
			pullErr = fmt.Errorf("%w: %w", ports.ErrCredentialsStale, pullErr)
		}
		return auth.EmptyCredential, pullErr
	}
	if tok != nil && now.Before(tok.ExpiresAt) {
		return auth.Credential{Username: tok.Login.Username, Password: tok.Login.Password}, nil
	}
	if err != nil {
		return auth.EmptyCredential, err
	}
	return auth.EmptyCredential, fmt.Errorf("use %s: %w", e.push.what, ports.ErrCredentialsStale)
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

// ecrLane is one token of the aws provider with its refresh state; ECR's
// mutex guards it (never held across a fetch: fetching marks one in flight).
type ecrLane struct {
	what   string
	tokens TokenSource
	write  func(context.Context, Login) error // nil: the token is only served

	token       *ECRToken
	refreshed   time.Time
	failures    int
	nextAttempt time.Time
	lastErr     error
	// fetching is closed when the fetch in flight ends; nil when none is.
	fetching chan struct{}
}

// interval is how long the current token is used before a new one is
// fetched: ECRRefreshInterval, or half the token's lifetime when shorter (but
// not under ECRRetryMin).
func (l *ecrLane) interval() time.Duration {
	return min(ECRRefreshInterval, max(l.token.ExpiresAt.Sub(l.refreshed)/2, ECRRetryMin))
}

// schedule reports whether a fetch is due at now (none yet, the refresh interval passed, or a
// failed attempt's backoff passed) and, when not, how long until one is and the last failure.
func (l *ecrLane) schedule(now time.Time) (wait time.Duration, due bool, lastErr error) {
	if l.failures > 0 && now.Before(l.nextAttempt) {
		return l.nextAttempt.Sub(now), false, l.lastErr
	}
	if l.failures == 0 && l.token != nil && now.Before(l.refreshed.Add(l.interval())) {
		return l.refreshed.Add(l.interval()).Sub(now), false, nil
	}
	return 0, true, nil
}

// record keeps the result of a fetch started at now and returns how long until the next one.
func (l *ecrLane) record(now time.Time, tok ECRToken, err error) (time.Duration, error) {
	if err != nil {
		l.failures++
		wait := min(ECRRetryMin<<min(l.failures-1, 10), ECRRetryMax)
		l.nextAttempt, l.lastErr = now.Add(wait), l.classify(now, err)
		return wait, l.lastErr
	}
	l.token, l.refreshed, l.failures, l.lastErr = &tok, now, 0, nil
	return l.interval(), nil
}

func (l *ecrLane) classify(now time.Time, err error) error {
	switch {
	case errors.Is(err, ports.ErrUnauthorized), errors.Is(err, ports.ErrCredentialsUnavailable):
		return fmt.Errorf("refresh %s: %w", l.what, err)
	case l.token == nil:
		return fmt.Errorf("refresh %s: %w: %w", l.what, ports.ErrCredentialsUnavailable, err)
	case !now.Before(l.token.ExpiresAt):
		return fmt.Errorf("refresh %s: %w: %w", l.what, ports.ErrCredentialsStale, err)
	}
	return fmt.Errorf("refresh %s, retrying after a transient failure: %w", l.what, err)
}

// isCredentialSentinel reports whether err wraps one of the credential
// sentinels the domain turns into a stall.
func isCredentialSentinel(err error) bool {
	return errors.Is(err, ports.ErrUnauthorized) || errors.Is(err, ports.ErrCredentialsUnavailable) ||
		errors.Is(err, ports.ErrCredentialsStale)
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
