package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Evidence artifact format: the evidence document and the validator's report
// as two titled layers, stored next to the bundles.
const (
	// EvidenceArtifactType is the artifact type of validation evidence.
	EvidenceArtifactType = "application/vnd.aicr.evidence.v1"
	// EvidenceMediaType is the media type of the evidence document.
	EvidenceMediaType = "application/vnd.aicr.evidence.v1+json"
	// ReportMediaType is the media type of the validator's report, stored byte for byte.
	ReportMediaType = "application/vnd.aicr.validation-report.v1"
	// EvidenceSchemaVersion is the evidence document schema.
	EvidenceSchemaVersion = 1
	evidenceTitle         = "evidence.json"
	reportTitle           = "report"
)

var errEvidenceInvalid = errors.New("invalid evidence")

// evidenceDoc is the stored evidence document.
type evidenceDoc struct {
	SchemaVersion int                      `json:"schemaVersion"`
	PlanDigest    string                   `json:"planDigest"`
	Rollout       string                   `json:"rollout"`
	BundleDigest  ports.Digest             `json:"bundleDigest,omitempty"`
	Approvals     []ports.EvidenceApproval `json:"approvals"`
	Releases      []ports.EvidenceRelease  `json:"releases"`
	// DisruptionOverrides is omitted when empty, so evidence without one keeps its digest.
	DisruptionOverrides []ports.EvidenceOverride `json:"disruptionOverrides,omitempty"`
	ReportDigest        string                   `json:"reportDigest"`
}

// PushEvidence stores ev in <registry>/bundles/cluster, tagged
// evidence-<rollout>-<hex of its manifest digest> (pushContentTagged), and
// returns its manifest digest: the value of the rollout's evidence
// annotation. The same evidence yields the same digest and tag; a rollout
// name reused after retention never moves the tag of earlier evidence, and a
// tag holding other content is refused with ports.ErrForeignObject.
func (r *Registry) PushEvidence(ctx context.Context, ev ports.Evidence) (ports.Digest, error) {
	if ev.PlanDigest == "" || ev.Rollout == "" {
		return "", fmt.Errorf("push evidence: plan digest and rollout are required: %w", errEvidenceInvalid)
	}
	report := newBlob(ReportMediaType, ev.Report, map[string]string{ocispec.AnnotationTitle: reportTitle})
	doc := evidenceDoc{
		SchemaVersion: EvidenceSchemaVersion, PlanDigest: ev.PlanDigest, Rollout: ev.Rollout,
		BundleDigest: ev.BundleDigest, Approvals: make([]ports.EvidenceApproval, len(ev.Approvals)),
		Releases: ev.Releases, ReportDigest: string(report.desc.Digest),
	}
	for i, a := range ev.Approvals {
		a.ExpiresAt = a.ExpiresAt.UTC()
		doc.Approvals[i] = a
	}
	for _, o := range ev.DisruptionOverrides {
		o.OverriddenAt = o.OverriddenAt.UTC()
		doc.DisruptionOverrides = append(doc.DisruptionOverrides, o)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("encode evidence: %w", err)
	}
	a := artifact{
		artifactType: EvidenceArtifactType, config: newBlob(ocispec.MediaTypeEmptyJSON, []byte("{}"), nil),
		layers:      []blob{newBlob(EvidenceMediaType, raw, map[string]string{ocispec.AnnotationTitle: evidenceTitle}), report},
		annotations: map[string]string{wellknown.AnnotationPlanDigest: ev.PlanDigest},
	}
	repo, err := r.repository(r.repoRef(BundlesRepository), true)
	if err != nil {
		return "", err
	}
	desc, err := pushContentTagged(ctx, repo, a, "evidence-"+ev.Rollout)
	if err != nil {
		return "", fmt.Errorf("push evidence: %w", err)
	}
	return ports.Digest(desc.Digest), nil
}

// PullEvidence reads the evidence stored under digest back.
func (r *Registry) PullEvidence(ctx context.Context, digest ports.Digest) (ports.Evidence, error) {
	repo, err := r.repository(r.repoRef(BundlesRepository)+"@"+string(digest), true)
	if err != nil {
		return ports.Evidence{}, err
	}
	_, m, err := fetchManifest(ctx, repo, string(digest))
	if err != nil {
		return ports.Evidence{}, fmt.Errorf("pull evidence: %w", err)
	}
	if m.ArtifactType != EvidenceArtifactType || len(m.Layers) != 2 ||
		m.Layers[0].MediaType != EvidenceMediaType || m.Layers[1].MediaType != ReportMediaType {
		return ports.Evidence{}, fmt.Errorf("pull evidence %s: %w", digest, errEvidenceInvalid)
	}
	raw, err := fetchBlob(ctx, repo, m.Layers[0])
	if err != nil {
		return ports.Evidence{}, fmt.Errorf("pull evidence: %w", err)
	}
	report, err := fetchBlob(ctx, repo, m.Layers[1])
	if err != nil {
		return ports.Evidence{}, fmt.Errorf("pull evidence: %w", err)
	}
	var doc evidenceDoc
	if err := json.Unmarshal(raw, &doc); err != nil || doc.SchemaVersion != EvidenceSchemaVersion ||
		doc.ReportDigest != string(m.Layers[1].Digest) {
		return ports.Evidence{}, fmt.Errorf("decode evidence %s: %w", digest, errors.Join(errEvidenceInvalid, err))
	}
	return ports.Evidence{
		PlanDigest: doc.PlanDigest, Rollout: doc.Rollout, BundleDigest: doc.BundleDigest,
		Approvals: doc.Approvals, Releases: doc.Releases, DisruptionOverrides: doc.DisruptionOverrides, Report: report,
	}, nil
}
