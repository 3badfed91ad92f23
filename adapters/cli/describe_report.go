package cli

import (
	"errors"
	"io"
	"text/tabwriter"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// writeAssessment prints AICR's upgrade-check report and its recorded steps, or Assessment: none.
func writeAssessment(w io.Writer, ro *aicrv1alpha1.RuntimeRollout, report *configdoc.Report) error {
	p := &printer{w: w}
	if report == nil {
		p.printf("\nAssessment: none\n")
		return p.result("assessment")
	}
	p.printf("\nAssessment: %s (%d components, %d not safe)\n",
		ro.Spec.AssessmentDigest, report.Summary.Components, report.Summary.Failing)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	tp := &printer{w: tw}
	tp.printf("  COMPONENT\tCHANGE\tFROM\tTO\tVERDICT\tREASON\n")
	for _, c := range report.Components {
		tp.printf("  %s\t%s\t%s\t%s\t%s\t%s\n", c.Component, orDefault(c.Change, "-"),
			orDefault(c.From, "-"), orDefault(c.To, "-"), orDefault(c.Verdict, "-"), orDefault(c.Reason, "-"))
	}
	if err := errors.Join(p.result("assessment"), tp.result("assessment"), tw.Flush()); err != nil {
		return err
	}
	for _, c := range report.Components {
		if c.Notes != "" {
			p.printf("  note (%s): %s\n", c.Component, c.Notes)
		}
		for _, id := range c.IdentityChanges {
			p.printf("  identity (%s): %s %s -> %s\n", c.Component, id.Field, orDefault(id.From, `""`), orDefault(id.To, `""`))
		}
	}
	writeRecordedSteps(p, report)
	return p.result("assessment")
}

// writeRecordedSteps prints each row's transition record: its precondition (before:) and its
// steps for the report's deployer. AICR records no split of the steps around the apply, so the
// operator performs only the apply and pauses before it until kubectl aicr acknowledge.
func writeRecordedSteps(p *printer, report *configdoc.Report) {
	p.printf("\nRecorded steps (the operator performs only the apply; it waits before applying a release listed here\n" +
		"until its precondition and steps are done and kubectl aicr acknowledge records it):\n")
	recorded := false
	for _, c := range report.Components {
		if !c.HasRecordedSteps() {
			continue
		}
		recorded = true
		p.printf("  %s %s -> %s (%s)", c.Component, orDefault(c.From, "-"), orDefault(c.To, "-"), orDefault(c.Verdict, "-"))
		if c.Summary != "" {
			p.printf(": %s", c.Summary)
		}
		p.printf("\n    before: %s\n", orDefault(c.Precondition, "nothing recorded"))
		if len(c.Steps) > 0 {
			p.printf("    steps (%s):\n", orDefault(report.Deployer, "-"))
		}
		for i, s := range c.Steps {
			p.printf("      %d. %s: %s\n", i+1, s.ID, s.Description)
			if s.Reason != "" {
				p.printf("%s\n", indentLines("why: "+s.Reason, "         "))
			}
		}
	}
	if !recorded {
		p.printf("  none\n")
	}
}
