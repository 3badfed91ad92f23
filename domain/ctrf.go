package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxNamedChecks bounds how many failed checks a failure message names.
const maxNamedChecks = 5

// ctrfReport is the part of AICR's CTRF report (`aicr validate`, docs/design/aicr-cli.md section 8) the
// operator judges; the report itself is kept byte for byte in the evidence.
type ctrfReport struct {
	ReportFormat string `json:"reportFormat"`
	Results      *struct {
		Summary *struct {
			Tests  int `json:"tests"`
			Passed int `json:"passed"`
			Failed int `json:"failed"`
			Other  int `json:"other"`
		} `json:"summary"`
		Tests []ctrfTest `json:"tests"`
	} `json:"results"`
}

// ctrfTest is one check of a CTRF report.
type ctrfTest struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// JudgeValidationReport decides a completed deployment validation run from its CTRF report
// (RO-10): nil when at least one check passed and none failed or ended otherwise. Skipped and
// pending checks do not fail a run, as with AICR's --fail-on-error, but they do not pass it
// either: a report without checks, or whose every check was skipped or pending, is no evidence
// and fails the run. The summary and the listed checks are both read, and the worse of the two
// counts (a summary saying more passed or fewer failed than the list shows is not believed).
// An empty or unparseable report, or one without results.summary, fails the run as failed
// checks do. The error is the reason, naming the counts and the first failed checks ("2 of 14
// checks failed: a, b").
func JudgeValidationReport(raw []byte) error {
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
	sum, tests := rep.Results.Summary, rep.Results.Tests
	total := max(sum.Tests, len(tests))
	failed, passed, names := sum.Failed+sum.Other, sum.Passed, failedChecks(tests)
	if len(tests) > 0 {
		failed, passed = max(failed, len(names)), min(passed, countStatus(tests, "passed"))
	}
	switch {
	case failed > 0:
		return checksFailed(failed, total, names)
	case total == 0:
		return errors.New("its report lists no checks: a run that checked nothing is no evidence")
	case passed == 0:
		return fmt.Errorf("none of its %d checks passed (all skipped or pending): a run that checked nothing is no evidence", total)
	}
	return nil
}

// failedChecks returns the names of the checks that failed or ended otherwise.
func failedChecks(tests []ctrfTest) []string {
	var names []string
	for _, t := range tests {
		if t.Status == "failed" || t.Status == "other" {
			names = append(names, t.Name)
		}
	}
	return names
}

func countStatus(tests []ctrfTest, status string) int {
	n := 0
	for _, t := range tests {
		if t.Status == status {
			n++
		}
	}
	return n
}

// checksFailed is the reason of a run with failed checks, naming at most maxNamedChecks.
func checksFailed(failed, total int, names []string) error {
	if len(names) > maxNamedChecks {
		names = append(names[:maxNamedChecks], "...")
	}
	msg := fmt.Sprintf("%d of %d checks failed", failed, total)
	if len(names) > 0 {
		msg += ": " + strings.Join(names, ", ")
	}
	return errors.New(msg)
}
