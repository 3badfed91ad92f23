package oci_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeECR plays ecr:GetAuthorizationToken for one identity: each call issues
// <prefix>token-<n>, valid 12 hours (or life) from the clock's now; fail,
// when set, is returned instead.
type fakeECR struct {
	clock  *fakeClock
	prefix string
	life   time.Duration
	calls  counter
	mu     sync.Mutex
	fail   error
}

func (f *fakeECR) Token(context.Context) (oci.ECRToken, error) {
	n := f.calls.inc()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return oci.ECRToken{}, f.fail
	}
	life := f.life
	if life == 0 {
		life = 12 * time.Hour
	}
	return oci.ECRToken{
		Login:     oci.Login{Username: "AWS", Password: fmt.Sprintf("%stoken-%d", f.prefix, n)},
		ExpiresAt: f.clock.Now().Add(life),
	}, nil
}

func (f *fakeECR) failWith(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

// recorder is a RepoCredsWriter that records every write.
type recorder struct {
	mu     sync.Mutex
	writes []oci.Login
}

func (r *recorder) WriteRepoCreds(_ context.Context, l oci.Login) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, l)
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

// newECR returns the aws provider over two fake identities: the operator's
// own (push-token-<n>) and the pull role (token-<n>, written to rec).
func newECR() (*oci.ECR, *fakeECR, *recorder, *fakeClock) {
	e, _, pull, rec, clock := newECRWithPush()
	return e, pull, rec, clock
}

func newECRWithPush() (e *oci.ECR, push, pull *fakeECR, rec *recorder, clock *fakeClock) {
	clock = &fakeClock{now: t0}
	push, pull, rec = &fakeECR{clock: clock, prefix: "push-"}, &fakeECR{clock: clock}, &recorder{}
	return oci.NewECR(push, pull, rec, clock), push, pull, rec, clock
}

func TestECR_TokenWrittenAtStartAndEverySixHoursNeverInBetween(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, _, rec, clock := newECR()

	wait, err := e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, rec.count(), "written at start")
	assert.Equal(t, 6*time.Hour, wait)

	for _, step := range []time.Duration{time.Minute, time.Hour, 4 * time.Hour, 58 * time.Minute} {
		clock.Add(step)
		_, err = e.Refresh(ctx)
		require.NoError(t, err)
		_, err = e.Credential(ctx, "ecr")
		require.NoError(t, err)
		assert.Equal(t, 1, rec.count(), "not written %v after start", clock.Now().Sub(t0))
	}
	clock.Add(time.Minute) // exactly 6 h
	_, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, rec.count(), "written again after 6 h")
	assert.Equal(t, "token-2", rec.writes[1].Password)

	clock.Add(6*time.Hour - time.Second)
	_, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, rec.count())
	clock.Add(time.Second)
	_, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, rec.count())
}

func TestECR_FailingRefreshSurfacesTheReason(t *testing.T) {
	t.Parallel()
	errOutage := errors.New("ecr endpoint unreachable")
	tests := []struct {
		name      string
		before    func(ctx context.Context, e *oci.ECR, clock *fakeClock)
		fail      error
		want      error
		credValid bool
	}{
		{name: "RegistryCredentialsUnavailable when no token was ever obtained", fail: errOutage, want: ports.ErrCredentialsUnavailable},
		{name: "Unauthorized when AWS denies the pull role", fail: fmt.Errorf("assume role: %w", ports.ErrUnauthorized), want: ports.ErrUnauthorized},
		{
			name: "RegistryCredentialsStale when the last token expired",
			before: func(ctx context.Context, e *oci.ECR, clock *fakeClock) {
				_, _ = e.Refresh(ctx)
				clock.Add(12 * time.Hour)
			},
			fail: errOutage, want: ports.ErrCredentialsStale,
		},
		{
			name: "transient while the last token is valid",
			before: func(ctx context.Context, e *oci.ECR, clock *fakeClock) {
				_, _ = e.Refresh(ctx)
				clock.Add(6 * time.Hour)
			},
			fail: errOutage, want: errOutage, credValid: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e, src, _, clock := newECR()
			if tt.before != nil {
				tt.before(ctx, e, clock)
			}
			src.failWith(tt.fail)
			_, err := e.Refresh(ctx)
			require.ErrorIs(t, err, tt.want)
			cred, cerr := e.Credential(ctx, "ecr")
			if tt.credValid {
				require.NoError(t, cerr, "a valid token keeps serving")
				assert.Contains(t, cred.Password, "push-token-", "the operator's own token")
				for _, s := range []error{ports.ErrCredentialsStale, ports.ErrCredentialsUnavailable, ports.ErrUnauthorized} {
					assert.False(t, errors.Is(err, s))
				}
				return
			}
			require.ErrorIs(t, cerr, tt.want)
		})
	}
}

func TestECR_FailedRefreshBacksOffOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, src, rec, clock := newECR()
	src.failWith(errors.New("throttled"))

	wait, err := e.Refresh(ctx)
	require.Error(t, err)
	assert.Equal(t, oci.ECRRetryMin, wait)
	calls := src.calls.n.Load()
	clock.Add(oci.ECRRetryMin - time.Second)
	_, err = e.Refresh(ctx)
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable, "the last failure is reported while waiting")
	assert.Equal(t, calls, src.calls.n.Load(), "no call before the backoff passed")

	clock.Add(time.Second)
	wait, err = e.Refresh(ctx)
	require.Error(t, err)
	assert.Equal(t, 2*oci.ECRRetryMin, wait, "the backoff doubles")
	for range 10 {
		clock.Add(wait)
		wait, _ = e.Refresh(ctx)
	}
	assert.Equal(t, oci.ECRRetryMax, wait, "the backoff is bounded")

	src.failWith(nil)
	clock.Add(wait)
	wait, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, oci.ECRRefreshInterval-clock.Now().Sub(t0), wait,
		"next due: the operator's own token, fetched at start; Argo CD's is due in 6 h")
	assert.Equal(t, 1, rec.count())
}

func TestECR_RunRefreshesWhenTheTimerFires(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	e, _, rec, clock := newECR()
	waits := make(chan time.Duration)
	fire := make(chan time.Time)
	done := make(chan error)
	go func() {
		done <- e.Run(ctx, func(d time.Duration) <-chan time.Time { waits <- d; return fire })
	}()
	assert.Equal(t, 6*time.Hour, <-waits)
	assert.Equal(t, 1, rec.count())
	clock.Add(6 * time.Hour)
	fire <- clock.Now()
	assert.Equal(t, 6*time.Hour, <-waits)
	assert.Equal(t, 2, rec.count())
	cancel()
	require.NoError(t, <-done)
}

func TestDecodeECRAuthorizationToken(t *testing.T) {
	t.Parallel()
	l, err := oci.DecodeECRAuthorizationToken("QVdTOnNlY3JldA==")
	require.NoError(t, err)
	assert.Equal(t, oci.Login{Username: "AWS", Password: "secret"}, l)
	_, err = oci.DecodeECRAuthorizationToken("bm9jb2xvbg==")
	require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
}

func TestECR_ArgoCDGetsThePullTokenTheOperatorKeepsItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, push, pull, rec, clock := newECRWithPush()

	for range 3 {
		_, err := e.Refresh(ctx)
		require.NoError(t, err)
		cred, err := e.Credential(ctx, "ecr")
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("push-token-%d", push.calls.n.Load()), cred.Password, "the operator pushes with its own token")
		clock.Add(oci.ECRRefreshInterval)
	}
	require.Len(t, rec.writes, 3)
	for i, w := range rec.writes {
		assert.Equal(t, oci.Login{Username: "AWS", Password: fmt.Sprintf("token-%d", i+1)}, w,
			"Argo CD receives only tokens of the pull role")
	}
	assert.Equal(t, int64(3), pull.calls.n.Load())
}

func TestECR_PullTokenFailureStallsOnlyWhileArgoCDHasNoValidToken(t *testing.T) {
	t.Parallel()
	errOutage := errors.New("sts endpoint unreachable")
	denied := fmt.Errorf("assume role: %w", ports.ErrUnauthorized)
	tests := []struct {
		name     string
		before   time.Duration // refresh successfully, then move the clock by before (0: no refresh)
		pullFail error
		pushFail error
		want     error // nil: the operator's own token is served
	}{
		{name: "Unauthorized when the pull role is denied at start", pullFail: denied, want: ports.ErrUnauthorized},
		{name: "RegistryCredentialsUnavailable when no pull token was ever obtained", pullFail: errOutage, want: ports.ErrCredentialsUnavailable},
		{name: "RegistryCredentialsStale when Argo CD's token expired", before: 12 * time.Hour, pullFail: errOutage, want: ports.ErrCredentialsStale},
		{name: "Unauthorized when the pull role is denied after Argo CD's token expired", before: 12 * time.Hour, pullFail: denied, want: ports.ErrUnauthorized},
		{name: "served while Argo CD's token is valid despite a denial", before: 6 * time.Hour, pullFail: denied},
		{name: "served while Argo CD's token is valid despite an outage", before: 6 * time.Hour, pullFail: errOutage},
		{name: "Unauthorized when the operator's own identity is denied", pushFail: fmt.Errorf("get token: %w", ports.ErrUnauthorized), want: ports.ErrUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e, push, pull, rec, clock := newECRWithPush()
			if tt.before > 0 {
				_, err := e.Refresh(ctx)
				require.NoError(t, err)
				clock.Add(tt.before)
			}
			writes := rec.count()
			pull.failWith(tt.pullFail)
			push.failWith(tt.pushFail)
			cred, err := e.Credential(ctx, "ecr")
			if tt.pullFail != nil {
				assert.Equal(t, writes, rec.count(), "a failed refresh writes nothing")
			}
			if tt.want == nil {
				require.NoError(t, err)
				assert.Contains(t, cred.Password, "push-token-")
				return
			}
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestECR_ShortLivedTokenIsRefreshedAtHalfItsLife(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, _, pull, rec, clock := newECRWithPush()
	pull.life = 2 * time.Hour

	wait, err := e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, time.Hour, wait, "a token living 2 h is refreshed after 1 h, not 6 h")
	clock.Add(time.Hour - time.Second)
	_, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, rec.count())
	clock.Add(time.Second)
	_, err = e.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, rec.count())
}

// panicsOnce is a TokenSource whose first call panics.
type panicsOnce struct {
	*fakeECR
	calls counter
}

func (p *panicsOnce) Token(ctx context.Context) (oci.ECRToken, error) {
	if p.calls.inc() == 1 {
		panic("token source bug")
	}
	return p.fakeECR.Token(ctx)
}

// TestECR_PanickingTokenSourceLeavesNoFetchInFlight: a fetch that panics (recovered by the
// caller, as controller-runtime recovers a reconcile, whichever token's fetch it was) is no
// longer in flight, so the next caller fetches again instead of waiting for it.
func TestECR_PanickingTokenSourceLeavesNoFetchInFlight(t *testing.T) {
	t.Parallel()
	for _, lane := range []string{"push", "pull"} {
		t.Run(lane, func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{now: t0}
			var push, pull oci.TokenSource = &fakeECR{clock: clock, prefix: "push-"}, &fakeECR{clock: clock}
			if lane == "push" {
				push = &panicsOnce{fakeECR: &fakeECR{clock: clock, prefix: "push-"}}
			} else {
				pull = &panicsOnce{fakeECR: &fakeECR{clock: clock}}
			}
			e := oci.NewECR(push, pull, &recorder{}, clock)
			require.Panics(t, func() { _, _ = e.Refresh(context.Background()) })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a stuck fetch would end the wait here
			defer cancel()
			_, err := e.Credential(ctx, ecrURL)
			require.NoError(t, err, "the next caller fetched the %s token again", lane)
		})
	}
}
