package oci_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// expiringAuth accepts the ECR logins a test registers until their expiry on
// the fake clock, as ECR does.
type expiringAuth struct {
	mu     sync.Mutex
	clock  *fakeClock
	valid  map[string]time.Time
	called counter
}

func (a *expiringAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.called.inc()
		_, pass, _ := r.BasicAuth()
		a.mu.Lock()
		exp, ok := a.valid[pass]
		a.mu.Unlock()
		if !ok || !a.clock.Now().Before(exp) {
			w.Header().Set("WWW-Authenticate", `Basic realm="ecr"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// issuingECR is a TokenSource whose tokens the expiringAuth registry accepts.
type issuingECR struct {
	*fakeECR
	auth *expiringAuth
}

func (s issuingECR) Token(ctx context.Context) (oci.ECRToken, error) {
	tok, err := s.fakeECR.Token(ctx)
	if err == nil {
		s.auth.mu.Lock()
		s.auth.valid[tok.Login.Password] = tok.ExpiresAt
		s.auth.mu.Unlock()
	}
	return tok, err
}

func TestECR_StaleTokenSurfacesThroughTheRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &fakeClock{now: t0}
	ea := &expiringAuth{clock: clock, valid: map[string]time.Time{}}
	host := serveRegistry(t, ea.wrap)
	src := &fakeECR{clock: clock}
	rec := &recorder{}
	e := oci.NewECR(issuingECR{fakeECR: src, auth: ea}, &fakeECR{clock: clock, prefix: "pull-"}, rec, clock)
	reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry, Credentials: e})
	require.NoError(t, err)

	_, err = reg.PushEvidence(ctx, evidenceFixture())
	require.NoError(t, err, "the first token authenticates")

	clock.Add(7 * time.Hour)
	_, err = e.Refresh(ctx) // what Run does when its 6 h timer fires
	require.NoError(t, err)
	assert.Equal(t, 2, rec.count())
	_, err = reg.PushEvidence(ctx, evidenceFixture())
	require.NoError(t, err)

	src.failWith(errors.New("ecr endpoint unreachable"))
	clock.Add(13 * time.Hour)
	_, err = reg.PushEvidence(ctx, evidenceFixture())
	require.ErrorIs(t, err, ports.ErrCredentialsStale)
}
