package ports

import "context"

// Digest is an OCI content digest, "sha256:<64 hex>".
type Digest string

// Evidence is a deployment-validation result to store in the registry.
type Evidence struct {
	PlanDigest string
	Rollout    string
	Report     []byte
}

// Registry is the runtime's OCI registry (mirrored charts, bundles, evidence).
//
// Contract: Resolve never mutates and returns ErrArtifactNotFound for a
// missing reference; PushEvidence is idempotent (the same evidence yields the
// same digest). Both return ErrCredentialsUnavailable when no credentials can
// be obtained, ErrCredentialsStale when the credentials expired and
// ErrUnauthorized when the registry denies them, wrapped with %w. Any other
// error is a transient outage the caller retries with backoff.
type Registry interface {
	// Resolve returns the manifest digest of ref (repository:tag or repository@digest).
	Resolve(ctx context.Context, ref string) (Digest, error)
	// PushEvidence stores ev and returns its manifest digest.
	PushEvidence(ctx context.Context, ev Evidence) (Digest, error)
}
