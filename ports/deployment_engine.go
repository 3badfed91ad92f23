package ports

import (
	"context"
	"time"
)

// Health is the engine-neutral health of a release's workloads.
type Health string

const (
	// HealthHealthy means every workload of the release is ready.
	HealthHealthy Health = "Healthy"
	// HealthProgressing means workloads are still rolling out.
	HealthProgressing Health = "Progressing"
	// HealthDegraded means a workload failed (crash loop, failed Job, ...).
	HealthDegraded Health = "Degraded"
	// HealthSuspended means the engine's automation is suspended for the release.
	HealthSuspended Health = "Suspended"
	// HealthMissing means the engine sees no live objects for the release.
	HealthMissing Health = "Missing"
	// HealthUnknown means the engine cannot tell; unknown engine strings map here.
	HealthUnknown Health = "Unknown"
)

// OperationState is the state of the engine's last sync operation.
type OperationState string

const (
	// OperationNone means the engine has not started a sync since the spec was written.
	OperationNone OperationState = ""
	// OperationRunning means a sync is in progress.
	OperationRunning OperationState = "Running"
	// OperationSucceeded means the last sync applied every object.
	OperationSucceeded OperationState = "Succeeded"
	// OperationFailed means the last sync failed; Message says why.
	OperationFailed OperationState = "Failed"
)

// ReleaseStatus is the engine's observation of one release. It is read-only
// data: nothing in it is a decision.
type ReleaseStatus struct {
	// Ref identifies the release.
	Ref ReleaseRef
	// Owner is what the engine object records (empty RuntimeUID: not written by the operator).
	Owner ReleaseOwner
	// DesiredRevision identifies the spec the engine object currently asks for
	// (engine-specific, e.g. chart version + values hash); SyncedRevision is the
	// revision the engine last applied. The release is synced when they are equal.
	DesiredRevision string
	// SyncedRevision is the revision of the last successful sync.
	SyncedRevision string
	// Health is the health of the release's workloads.
	Health Health
	// Operation is the state of the last sync operation.
	Operation OperationState
	// LastSyncAt is when the last sync operation started (zero: never).
	LastSyncAt time.Time
	// Suspended reports whether the engine's automation is suspended for the release.
	Suspended bool
	// Removing reports that Remove began on the engine object: it is being deleted, or it
	// carries the cascade marker Remove sets before it deletes (Argo CD: the resources
	// finalizer), so a crash between the two is still seen as a removal begun (ENG-3, RO-12).
	Removing bool
	// Message is engine-provided detail, safe to show to users.
	Message string
	// Object names the engine object as its users know it (Argo CD: "Application
	// <namespace>/<name>"), for status messages; empty when the engine names none.
	Object string
	// SpecDigest is the digest of what the engine owns of the engine object's spec, computed
	// from the live object's spec fields (never read back from an annotation): it equals
	// DeploymentEngine.SpecDigest of a ReleaseSpec exactly when the object asks for what Apply
	// of that spec writes. Empty when the spec cannot be encoded, which matches no plan.
	SpecDigest string
}

// Synced reports whether the engine applied the revision it currently asks for.
func (s ReleaseStatus) Synced() bool {
	return s.DesiredRevision != "" && s.DesiredRevision == s.SyncedRevision
}

// Ready reports whether the release is synced and healthy.
func (s ReleaseStatus) Ready() bool { return s.Synced() && s.Health == HealthHealthy }

// Matches reports whether the engine object's spec is exactly the one whose digest is planned
// (DeploymentEngine.SpecDigest of the plan's ReleaseSpec); an empty planned digest matches nothing.
func (s ReleaseStatus) Matches(planned string) bool { return planned != "" && s.SpecDigest == planned }

// ReadyAt reports whether the release is ready (synced and healthy) at the planned spec: the
// object asks for what the plan renders and the engine applied it.
func (s ReleaseStatus) ReadyAt(planned string) bool { return s.Matches(planned) && s.Ready() }

// DeploymentEngine deploys releases (one engine object per release, e.g. an
// Argo CD Application or a Flux HelmRelease) and reports their state.
//
// Contract for implementations:
//   - No method blocks waiting for health or sync: a method returns as soon
//     as the engine's API accepted or answered the request; the caller polls
//     Status on a later reconcile.
//   - Apply and Remove are idempotent: repeating a call with the same input
//     has no further effect and returns nil.
//   - An engine object is the operator's only when its recorded Owner.RuntimeUID
//     equals the caller's; labels alone never authorise a mutation. Apply and
//     Remove return ErrForeignObject for any other object in the way and never
//     modify it. Adopt is the only way to take over an object of another runtime.
//   - Values are passed through unchanged, including explicit nil values.
//   - Every method returns ErrEngineUnsupported when the engine is compiled in
//     but disabled, ErrEngineMissing when the engine API is absent and
//     ErrUnauthorized when the operator's identity is denied, each wrapped with %w.
//     Any other error is transient: the caller retries with backoff.
//   - ReleaseSpec.DependsOn may be mapped onto the engine's own ordering
//     (Flux dependsOn, Argo CD sync waves), but the domain already applies
//     releases one step at a time in dependency order, so honouring it is optional.
//   - Status must let the domain judge a step without remembering anything:
//     Owner is read back from the engine object, DesiredRevision changes with
//     every Apply that changes chart, values or policy, and SyncedRevision only
//     once the engine applied that revision; unknown engine states map to
//     HealthUnknown / OperationNone, never to an error.
//   - Owner is an annotation anybody who may edit the engine object can forge; SpecDigest is
//     computed from the object's spec and equals SpecDigest(spec) only for an object asking for
//     exactly what Apply(spec) writes, so the domain judges an object against the plan with it.
//   - ENG-5: every implementation is meant to pass the shared DeploymentEngine
//     conformance suite (written with the Argo CD adapter).
//   - Implementations are safe for concurrent use.
type DeploymentEngine interface {
	// Check verifies the engine can be used: its API is installed
	// (ErrEngineMissing), its project/tenant exists (ErrProjectMissing) and
	// the operator may use it (ErrUnauthorized). It never mutates.
	Check(ctx context.Context) error

	// Apply creates or updates the engine object of spec.Ref so that the engine
	// converges the release to spec (chart, values, policy) and records
	// spec.Owner on it. It returns once the object is written; it does not
	// wait for a sync. Writing an identical spec is a no-op.
	Apply(ctx context.Context, spec ReleaseSpec) error

	// Adopt rewrites the Owner of an existing engine object created for the
	// runtime UID previousRuntimeUID to owner, without changing chart or values.
	// It returns ErrTargetNotFound when the object is missing and
	// ErrForeignObject when the object records another runtime UID.
	Adopt(ctx context.Context, ref ReleaseRef, previousRuntimeUID string, owner ReleaseOwner) error

	// Status returns the engine's view of one release. It returns
	// ErrTargetNotFound when the engine object does not exist. It never mutates.
	Status(ctx context.Context, ref ReleaseRef) (ReleaseStatus, error)

	// List returns the status of every engine object carrying the operator's
	// labels, whatever runtime UID they record, sorted by namespace and ID.
	List(ctx context.Context) ([]ReleaseStatus, error)

	// Specs returns the spec every engine object carrying the operator's
	// labels records, whatever runtime UID it records, sorted by namespace and
	// ID: Ref, Position, Component, Kind, Chart (upstream repository, name,
	// version, manifest and archive digests), ContentDigest, Values (explicit
	// nil values kept), Policy, DependsOn and Owner, each exactly as the last
	// Apply (or Adopt, for Owner) wrote it, so Apply then Specs round-trips.
	// It is what a lost plan is rebuilt from (PLAN-7): an implementation must
	// therefore record every field of ReleaseSpec on the engine object, not
	// only those the engine itself needs. An object that lacks a field (written
	// by an older operator) is returned with that field zero; Position is then
	// -1, which no plan order has. It never mutates.
	Specs(ctx context.Context) ([]ReleaseSpec, error)

	// Remove deletes the engine object of ref and, with it, the release's live
	// objects (the engine's cascading delete). Missing objects are success.
	Remove(ctx context.Context, ref ReleaseRef, owner ReleaseOwner) error

	// Suspend turns the engine's automated sync for ref off (suspend true) or
	// back on. Like Apply and Remove it mutates only an object recording
	// owner.RuntimeUID and returns ErrForeignObject for any other, which it
	// never modifies. It returns ErrTargetNotFound when the object is missing
	// and ErrSuspensionRefused while a sync operation runs.
	Suspend(ctx context.Context, ref ReleaseRef, owner ReleaseOwner, suspend bool) error

	// SpecDigest returns the ReleaseStatus.SpecDigest of an engine object that Apply(spec)
	// wrote and nobody changed since: the digest of the engine object's spec as Apply renders
	// it from spec (canonical encoding, SHA-256). spec.Owner does not enter it, nor does the
	// switch Suspend turns. It never reads the engine: the plan, not the live object, decides.
	SpecDigest(spec ReleaseSpec) (string, error)

	// Unplanned returns the names of the engine objects in the operator's project or tenant
	// (Argo CD: the AppProject) that are not the engine object of any of planned, whatever
	// labels they carry, sorted: objects no plan names, created out of band. It never mutates.
	Unplanned(ctx context.Context, planned []ReleaseRef) ([]string, error)
}

// ConsistentReads is implemented by a DeploymentEngine whose Status and List show its own
// writes at once and every write made before them, with nothing in between that may lag (no
// cache): a step it wrote can be judged in the same reconcile, and the next one started when
// it is ready. An engine read through a cache does not implement it (or reports false): right
// after a write its reads may not show what anybody else changed since (an Application deleted
// by hand), so the step waits for the engine's next event.
type ConsistentReads interface {
	ReadsItsWrites() bool
}

// SpecWriters is implemented by a DeploymentEngine that can tell who else writes the spec of an
// engine object (Kubernetes: the field managers of its managedFields other than the operator's).
type SpecWriters interface {
	// OtherSpecWriters returns the writers other than the operator of ref's engine object's
	// spec, the latest first; none when it cannot tell. It returns ErrTargetNotFound when the
	// object is missing. It never mutates.
	OtherSpecWriters(ctx context.Context, ref ReleaseRef) ([]string, error)
}
