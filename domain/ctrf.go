package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxNamedChecks bounds how many failed checks a failure message names.
const maxNamedChecks = 5

// ctrfReport is the part of AICR's CTRF report (`aicr validate`, AICR-CLI.md section 8) the
// operator judges; the report itself is kept byte for byte in the evidence.
type ctrfReport struct {
	ReportFormat string `json:"reportFormat"`
	Results      *struct {
		Summary *struct {
			Tests  int `json:"tests"`
			Failed int `json:"failed"`
			Other  int `json:"other"`
		} `json:"summary"`
		Tests []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"tests"`
	} `json:"results"`
}

// judgeValidationReport decides a completed deployment validation run from its CTRF report
// (RO-10): nil when no check failed or ended otherwise (skipped and pending checks do not
// fail a run, as with AICR's --fail-on-error). An empty or unparseable report, or one without
// results.summary, fails the run as failed checks do. The error is the reason, naming the
// counts and the first failed checks ("2 of 14 checks failed: a, b").
func judgeValidationReport(raw []byte) error {
	if len(raw) == 0 {
		return errors.New("the run wrote no report")
	}
	var rep ctrfReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("its report is not JSON: %w", err)
	}
	if rep.ReportFormat != "CTRF" || rep.Results == nil || rep.Results.Summary == nil {
		return errors.New("its report is not a CTRF report with results.summary")
	}
	sum := rep.Results.Summary
	failed := sum.Failed + sum.Other
	if failed == 0 {
		return nil
	}
	var names []string
	for _, t := range rep.Results.Tests {
		if t.Status == "failed" || t.Status == "other" {
			names = append(names, t.Name)
		}
	}
	if len(names) > maxNamedChecks {
		names = append(names[:maxNamedChecks], "...")
	}
	msg := fmt.Sprintf("%d of %d checks failed", failed, sum.Tests)
	if len(names) > 0 {
		msg += ": " + strings.Join(names, ", ")
	}
	return errors.New(msg)
}
