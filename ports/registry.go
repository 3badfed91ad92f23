package ports

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// ErrArchiveRejected reports that an upstream chart archive was refused while
// mirroring: its SHA-256 differs from the digest the upstream index or manifest
// announces or from the digest the caller expects; nothing announces a digest
// to verify it against; the runtime registry already holds that chart version
// with another archive digest or from another upstream; or the upstream is not
// https, lists the archive off https or off the repository's host, or
// redirects there. It is never transient: the caller stalls.
var ErrArchiveRejected = errors.New("upstream chart archive rejected")

// Digest is an OCI content digest, "sha256:<64 hex>".
type Digest string

// UpstreamChart is a chart to mirror into the runtime registry.
type UpstreamChart struct {
	// Chart is the upstream source: an https:// Helm repository or an oci://
	// parent with the chart name and version.
	Chart ChartSource
	// ExpectedArchiveDigest, when set, is the digest the upstream archive must
	// have (for example the one an earlier plan recorded); it is checked in
	// addition to the digest the upstream announces.
	ExpectedArchiveDigest Digest
	// RecordedManifestDigest, when set together with ExpectedArchiveDigest, is
	// the manifest the operator recorded when it published this chart before
	// (a plan it wrote, or an earlier publish of this process). MirrorChart
	// then serves the chart from the runtime registry without contacting the
	// upstream when <registry>/charts/<name>:<version> still names exactly that
	// manifest, whose chart layer is ExpectedArchiveDigest from this upstream.
	// A tag is never taken on its name alone: a tag naming another manifest,
	// or none, is handled as without a record (the upstream is fetched and
	// verified).
	RecordedManifestDigest Digest
}

// PinnedChart is a chart as the runtime registry serves it.
type PinnedChart struct {
	// Repository is the OCI repository without scheme:
	// <registry>/charts/<name> for a mirrored chart, <registry>/wrappers/<name>
	// for a bundle-local chart.
	Repository string
	// Name and Version are the chart's name and version (the tag).
	Name    string
	Version string
	// ManifestDigest addresses the chart's OCI manifest.
	ManifestDigest Digest
	// ArchiveDigest is the digest of the chart archive (for a mirrored chart:
	// the verified upstream archive, stored unchanged as the chart layer).
	ArchiveDigest Digest
}

// Reference returns "<repository>@<manifest digest>".
func (p PinnedChart) Reference() string { return p.Repository + "@" + string(p.ManifestDigest) }

// EvidenceApproval is the approval a rollout ran under.
type EvidenceApproval struct {
	ApprovedBy string    `json:"approvedBy"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Reason     string    `json:"reason,omitempty"`
	// Acknowledgements maps a release ID to the approver who acknowledged its recorded steps.
	Acknowledgements map[string]string `json:"acknowledgements,omitempty"`
}

// EvidenceOverride is an approver's override of a disruptive step.
type EvidenceOverride struct {
	Release      string    `json:"release"`
	OverriddenBy string    `json:"overriddenBy"`
	OverriddenAt time.Time `json:"overriddenAt"`
	Reason       string    `json:"reason"`
}

// EvidenceRelease is the revision one release was validated at.
type EvidenceRelease struct {
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
	// Revision is the engine revision the release was synced to.
	Revision string `json:"revision"`
	// ChartDigest is the manifest digest of the chart the release installs.
	ChartDigest Digest `json:"chartDigest,omitempty"`
}

// Evidence is a deployment-validation result to store in the registry after a
// validated rollout (RO-10). Its digest is the rollout's evidence annotation.
type Evidence struct {
	PlanDigest string
	Rollout    string
	// BundleDigest is the rendered bundle the plan came from (empty: unknown).
	BundleDigest Digest
	// Approvals is empty when the rollout needed no approval.
	Approvals []EvidenceApproval
	// Releases lists the validated releases in plan order.
	Releases []EvidenceRelease
	// DisruptionOverrides are the steps approvers let go outside the change policy.
	DisruptionOverrides []EvidenceOverride
	// Report is the validator's report, stored byte for byte.
	Report []byte
}

// ErrBundleRejected reports a bundle artifact the operator refuses to read: not
// AICR's bundle artifact type, not exactly one gzip tar layer, larger than the
// bound, or an archive that is not a plain tree of regular files. It is never
// transient: the caller stalls.
var ErrBundleRejected = errors.New("bundle artifact rejected")

// BundleTarget is where and how a bundle Job pushes its bundle with AICR's
// `-o oci://` (docs/design/aicr-cli.md section 7).
type BundleTarget struct {
	// Repository is <registry>/bundles/cluster, without scheme.
	Repository string
	// PlainHTTP makes the Job push over plain HTTP (AICR's --plain-http).
	PlainHTTP bool
	// DockerConfig is a docker config.json holding only the push credential for
	// the repository's host, for the Job's run-scoped Secret (RES-8).
	DockerConfig []byte
}

// Registry is the runtime's OCI registry (mirrored charts, wrapper charts,
// rendered bundles, evidence). Every artifact is addressed by manifest digest:
// <registry>/charts/<name>, <registry>/wrappers/<name> and
// <registry>/bundles/cluster (bundles and evidence).
//
// Contract: Resolve and the Pull methods never mutate; they return
// ErrArtifactNotFound for a missing reference. Every push is idempotent: the
// same input yields the same digest. MirrorChart verifies the upstream archive
// before anything is pushed and returns ErrArchiveRejected when it does not
// verify; a chart version mirrored once keeps its archive digest and upstream
// (the same is reused, anything else is ErrArchiveRejected). Bundles are pushed
// by AICR itself (BundleTarget) and pulled only by digest. PushEvidence tags
// each artifact uniquely by its content and never moves a tag:
// a tag that already holds other content is ErrForeignObject. Every method
// returns ErrCredentialsUnavailable when no credentials can be obtained,
// ErrCredentialsStale when the credentials expired and ErrUnauthorized when
// the registry denies them, wrapped with %w. Any other error is a transient
// outage the caller retries with backoff.
type Registry interface {
	// Resolve returns the manifest digest of ref (repository:tag or repository@digest).
	Resolve(ctx context.Context, ref string) (Digest, error)
	// MirrorChart copies an upstream chart to <registry>/charts/<name>:<version>
	// after verifying its archive digest and returns the pinned chart.
	MirrorChart(ctx context.Context, chart UpstreamChart) (PinnedChart, error)
	// PushWrapper packages a bundle-local chart (chart is the chart folder,
	// Chart.yaml at its root) to <registry>/wrappers/<name>:<version>.
	PushWrapper(ctx context.Context, chart fs.FS) (PinnedChart, error)
	// BundleTarget returns where a bundle Job pushes the bundle it renders and
	// the short-lived push credential it needs (RES-8).
	BundleTarget(ctx context.Context) (BundleTarget, error)
	// PullBundle returns the files of the bundle AICR pushed to
	// <registry>/bundles/cluster@digest, after verifying the artifact: AICR's
	// artifact type, exactly one gzip tar layer within the size bound, its
	// content matching its digest, and a plain tree of regular files.
	// Anything else is ErrBundleRejected.
	PullBundle(ctx context.Context, digest Digest) (fs.FS, error)
	// PushEvidence stores ev next to the bundles and returns its manifest digest.
	PushEvidence(ctx context.Context, ev Evidence) (Digest, error)
	// PullEvidence returns the evidence stored under digest.
	PullEvidence(ctx context.Context, digest Digest) (Evidence, error)
}
