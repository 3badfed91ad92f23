package main

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// maxCountedJobs bounds the Job names a countedJobs remembers. Names are forgotten when the
// Job is deleted; a failed Job retained for inspection expires by its TTL instead, so past this
// many the memory starts over (a Job still finished may then be counted once more).
const maxCountedJobs = 1024

// countedJobs counts each AICR Job the controllers see finish, once per Job, in
// aicr_operator_jobs_finished_total: the JobRunner port reports a Job's state on every
// reconcile, so the first Succeeded or Failed status of a name counts and later ones do not.
// A Job still finished when the operator restarts is counted again once.
type countedJobs struct {
	ports.JobRunner
	finished *prometheus.CounterVec
	runner   string

	mu   sync.Mutex
	seen map[string]struct{}
}

// countJobs wraps runner so the Jobs it reports finished are counted under the runner label.
func countJobs(runner ports.JobRunner, finished *prometheus.CounterVec, label string) *countedJobs {
	return &countedJobs{JobRunner: runner, finished: finished, runner: label, seen: map[string]struct{}{}}
}

// Status reports the Job's state and counts it the first time it is finished.
func (c *countedJobs) Status(ctx context.Context, ref ports.JobRef) (ports.JobStatus, error) {
	st, err := c.JobRunner.Status(ctx, ref)
	if err != nil {
		return st, err
	}
	switch st.State {
	case ports.JobSucceeded:
		c.count(ref.Name, shared.JobSucceeded)
	case ports.JobFailed:
		c.count(ref.Name, shared.JobFailed)
	case ports.JobRunning:
	}
	return st, nil
}

// Delete deletes the Job and forgets it, so a new Job of the same name counts again.
func (c *countedJobs) Delete(ctx context.Context, ref ports.JobRef) error {
	if err := c.JobRunner.Delete(ctx, ref); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.seen, ref.Name)
	c.mu.Unlock()
	return nil
}

func (c *countedJobs) count(name, result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[name]; ok {
		return
	}
	if len(c.seen) >= maxCountedJobs {
		c.seen = map[string]struct{}{}
	}
	c.seen[name] = struct{}{}
	c.finished.WithLabelValues(c.runner, result).Inc()
}

// refreshMetrics records registry credential refreshes: aicr_operator_registry_credential_refreshes_total
// by credential and result, the Unix time of the last success per credential and the expiry of
// the credential in use (expiry may be nil).
type refreshMetrics struct {
	refreshes *prometheus.CounterVec
	refreshed *prometheus.GaugeVec
	expiry    *prometheus.GaugeVec
	clock     ports.Clock
}

func (m refreshMetrics) record(credential string, err error) {
	if err != nil {
		m.refreshes.WithLabelValues(credential, shared.ResultFailure).Inc()
		return
	}
	m.refreshes.WithLabelValues(credential, shared.ResultSuccess).Inc()
	m.refreshed.WithLabelValues(credential).Set(float64(m.clock.Now().Unix()))
}

func (m refreshMetrics) expires(credential string, at time.Time) {
	if m.expiry != nil && !at.IsZero() {
		m.expiry.WithLabelValues(credential).Set(float64(at.Unix()))
	}
}

// countedTokens records each token request of one credential. With successes false only
// failures are recorded: Argo CD's pull token is refreshed once it is written into the
// repo-creds Secret, which countedRepoCreds records; the token's expiry waits in issued until
// then.
type countedTokens struct {
	oci.TokenSource
	metrics    refreshMetrics
	credential string
	successes  bool
	issued     *issuedToken
}

// Token requests a token and records the attempt.
func (t countedTokens) Token(ctx context.Context) (oci.ECRToken, error) {
	tok, err := t.TokenSource.Token(ctx)
	if err != nil || t.successes {
		t.metrics.record(t.credential, err)
	}
	switch {
	case err != nil:
	case t.successes:
		t.metrics.expires(t.credential, tok.ExpiresAt)
	case t.issued != nil:
		t.issued.set(tok.ExpiresAt)
	}
	return tok, err
}

// countedRepoCreds records each write of Argo CD's pull token into the repo-creds Secret and,
// after a successful write, the expiry of the token issued (may be nil).
type countedRepoCreds struct {
	oci.RepoCredsWriter
	metrics refreshMetrics
	issued  *issuedToken
}

// WriteRepoCreds writes login and records the pull credential's refresh.
func (w countedRepoCreds) WriteRepoCreds(ctx context.Context, login oci.Login) error {
	err := w.RepoCredsWriter.WriteRepoCreds(ctx, login)
	w.metrics.record(shared.CredentialPull, err)
	if err == nil && w.issued != nil {
		w.metrics.expires(shared.CredentialPull, w.issued.get())
	}
	return err
}

// issuedToken holds the expiry of the last pull token issued until it is written.
type issuedToken struct {
	mu        sync.Mutex
	expiresAt time.Time
}

func (i *issuedToken) set(at time.Time) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.expiresAt = at
}

func (i *issuedToken) get() time.Time {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.expiresAt
}
