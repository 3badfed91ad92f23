package configdoc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Report is AICR's upgrade-check report (`aicr upgrade-check --format json`), stored under
// ReportKey. Fields the operator does not show (source, atRisk, ...) are ignored when decoding,
// and so are fields a later AICR 1.x release adds.
type Report struct {
	// From names what the check compared from (a recipe, a bundle directory or "cluster").
	From string `json:"from,omitempty"`
	// To names what it compared to.
	To string `json:"to,omitempty"`
	// Deployer is the --deployer the rows' steps are narrowed to.
	Deployer string `json:"deployer,omitempty"`
	// Summary counts the report's components.
	Summary ReportSummary `json:"summary"`
	// Components has one row per compared component, sorted by name.
	Components []ComponentRow `json:"components"`
}

// ReportSummary is the report's summary block.
type ReportSummary struct {
	// Components is the number of compared components.
	Components int `json:"components"`
	// Failing is the number of rows that fail the run.
	Failing int `json:"failing"`
}

// ComponentRow is upgrade-check's row for one component.
type ComponentRow struct {
	// Component is the recipe component.
	Component string `json:"component"`
	// Change is version, identity, added, removed or replaced.
	Change string `json:"change"`
	// From is the version installed now (on replaced, the departing component's name).
	From string `json:"from,omitempty"`
	// To is the target version.
	To string `json:"to,omitempty"`
	// IdentityChanges lists what changed in the component's identity.
	IdentityChanges []IdentityChange `json:"identityChanges,omitempty"`
	// Verdict is safe, manual, blocked, unknown or unversioned; absent on added and removed rows.
	Verdict string `json:"verdict,omitempty"`
	// Notes is AICR's one-line note for the row.
	Notes string `json:"notes,omitempty"`
	// Reason is AICR's reason code (recorded, no-record, identity-changed, ...).
	Reason string `json:"reason,omitempty"`
	// Explanation says in prose why the row has its verdict.
	Explanation string `json:"explanation,omitempty"`
	// Breaking reports that the change crosses a breaking boundary.
	Breaking bool `json:"breaking"`
	// Downgrade reports a move to a lower version.
	Downgrade bool `json:"downgrade"`
	// StoppedAt is the record range a blocked move stops at.
	StoppedAt string `json:"stoppedAt,omitempty"`
	// Summary is the transition record's summary.
	Summary string `json:"summary,omitempty"`
	// Precondition is what must hold before the move starts.
	Precondition string `json:"precondition,omitempty"`
	// Steps are the record's steps for the report's deployer, in order.
	Steps []RecordStep `json:"steps,omitempty"`
	// FailsRun reports that the row fails the check.
	FailsRun bool `json:"failsRun"`
}

// IdentityChange is one field of a component's identity that differs between the two sides.
type IdentityChange struct {
	// Field is the identity field (namespace, chart, fullnameOverride, ...).
	Field string `json:"field"`
	// From is its value now.
	From string `json:"from"`
	// To is its target value.
	To string `json:"to"`
}

// RecordStep is one step of a transition record.
type RecordStep struct {
	// ID identifies the step.
	ID string `json:"id"`
	// Description says what to do.
	Description string `json:"description"`
	// Reason says why.
	Reason string `json:"reason,omitempty"`
}

// HasRecordedSteps reports whether the row's transition record asks for anything besides the
// apply: a precondition to confirm or steps to carry out.
func (r ComponentRow) HasRecordedSteps() bool {
	return r.Precondition != "" || len(r.Steps) > 0
}

var (
	reportChanges  = []string{"version", "identity", "added", "removed", "replaced"}
	reportVerdicts = []string{"safe", "manual", "blocked", "unknown", "unversioned"}
)

// DecodeReport parses an upgrade-check report: a single JSON object whose rows name a
// component, a change AICR defines and, except on added and removed rows, a verdict AICR
// defines. A row with anything else is refused, never guessed at.
func DecodeReport(raw []byte) (*Report, error) {
	r := &Report{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("decode upgrade-check report: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode upgrade-check report: data after the report")
	}
	if r.Components == nil {
		return nil, errors.New("decode upgrade-check report: no components list")
	}
	for i, row := range r.Components {
		if err := row.check(); err != nil {
			return nil, fmt.Errorf("decode upgrade-check report: components[%d]: %w", i, err)
		}
	}
	return r, nil
}

func (r ComponentRow) check() error {
	switch {
	case r.Component == "":
		return errors.New("no component")
	case !slices.Contains(reportChanges, r.Change):
		return fmt.Errorf("%s: change %q is none of %v", r.Component, r.Change, reportChanges)
	case r.Verdict == "" && r.Change != "added" && r.Change != "removed":
		return fmt.Errorf("%s: a %s row has no verdict", r.Component, r.Change)
	case r.Verdict != "" && !slices.Contains(reportVerdicts, r.Verdict):
		return fmt.Errorf("%s: verdict %q is none of %v", r.Component, r.Verdict, reportVerdicts)
	}
	for i, s := range r.Steps {
		if s.ID == "" || s.Description == "" {
			return fmt.Errorf("%s: steps[%d] needs an id and a description", r.Component, i)
		}
	}
	return nil
}

// ContentDigest returns "sha256:" + hex SHA-256 of a document's bytes as stored.
func ContentDigest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}
