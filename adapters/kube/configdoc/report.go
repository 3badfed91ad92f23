package configdoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Report is AICR's upgrade-check report (`aicr upgrade-check --format json`), stored under
// ReportKey. Fields the operator does not show are ignored when decoding.
type Report struct {
	// Summary counts the report's components.
	Summary ReportSummary `json:"summary"`
	// Components has one row per compared component.
	Components []ComponentRow `json:"components"`
}

// ReportSummary is the report's summary block.
type ReportSummary struct {
	// Components is the number of compared components.
	Components int `json:"components"`
	// Failing is the number of components whose verdict is not safe.
	Failing int `json:"failing"`
}

// ComponentRow is upgrade-check's row for one component.
type ComponentRow struct {
	// Component is the recipe component.
	Component string `json:"component"`
	// Change is what happens to it: added, removed, upgraded, downgraded, unchanged or identity-changed.
	Change string `json:"change,omitempty"`
	// From is the version installed now.
	From string `json:"from,omitempty"`
	// To is the target version.
	To string `json:"to,omitempty"`
	// Verdict is safe, manual, blocked, unknown or unversioned.
	Verdict string `json:"verdict"`
	// Reason is AICR's reason code (recorded, no-record, identity-changed, ...).
	Reason string `json:"reason,omitempty"`
	// Breaking reports a breaking change.
	Breaking bool `json:"breaking,omitempty"`
	// IdentityChanges lists what changed in the component's identity.
	IdentityChanges []string `json:"identityChanges,omitempty"`
	// AtRisk lists what the change puts at risk.
	AtRisk []string `json:"atRisk,omitempty"`
	// Notes are AICR's notes for the row.
	Notes []string `json:"notes,omitempty"`
	// Transitions are the transition records (recipes/upgrades/<component>.yaml) the change falls into.
	Transitions []TransitionRecord `json:"transitions,omitempty"`
}

// TransitionRecord is one entry of a ComponentUpgrades record.
type TransitionRecord struct {
	// From is the semver range of the installed version.
	From string `json:"from"`
	// To is the semver range of the target version.
	To string `json:"to"`
	// Verdict is the record's verdict.
	Verdict string `json:"verdict,omitempty"`
	// Summary says what the transition does.
	Summary string `json:"summary,omitempty"`
	// Precondition is what must hold before the apply.
	Precondition string `json:"precondition,omitempty"`
	// StepsByDeployer are the manual steps, per deployer.
	StepsByDeployer []DeployerSteps `json:"stepsByDeployer,omitempty"`
}

// DeployerSteps are a transition record's steps for some deployers.
type DeployerSteps struct {
	// Deployers the steps apply to (helm, argocd, ...).
	Deployers []string `json:"deployers"`
	// Steps in order.
	Steps []RecordStep `json:"steps"`
}

// RecordStep is one manual step of a transition record.
type RecordStep struct {
	// ID identifies the step.
	ID string `json:"id"`
	// Description says what to do.
	Description string `json:"description"`
	// Reason says why.
	Reason string `json:"reason,omitempty"`
}

// DecodeReport parses an upgrade-check report.
func DecodeReport(raw []byte) (*Report, error) {
	r := &Report{}
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("decode upgrade-check report: %w", err)
	}
	return r, nil
}

// ContentDigest returns "sha256:" + hex SHA-256 of a document's bytes as stored.
func ContentDigest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}
