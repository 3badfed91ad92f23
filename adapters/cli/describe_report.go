package cli

import (
	"errors"
	"io"
	"strings"
	"text/tabwriter"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
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
			orDefault(c.From, "-"), orDefault(c.To, "-"), c.Verdict, orDefault(c.Reason, "-"))
	}
	if err := errors.Join(p.result("assessment"), tp.result("assessment"), tw.Flush()); err != nil {
		return err
	}
	for _, c := range report.Components {
		for _, n := range c.Notes {
			p.printf("  note (%s): %s\n", c.Component, n)
		}
	}
	writeRecordedSteps(p, report)
	return p.result("assessment")
}

// writeRecordedSteps prints each transition record's precondition (before:) and steps. The
// operator performs only the apply: approving acknowledges what comes before it, and
// kubectl aicr acknowledge what comes after it.
func writeRecordedSteps(p *printer, report *configdoc.Report) {
	p.printf("\nRecorded steps (the operator performs only the apply: approving acknowledges what comes before it,\n" +
		"kubectl aicr acknowledge what comes after it):\n")
	recorded := false
	for _, c := range report.Components {
		for _, t := range c.Transitions {
			recorded = true
			p.printf("  %s %s -> %s (%s)", c.Component, t.From, t.To, orDefault(t.Verdict, c.Verdict))
			if t.Summary != "" {
				p.printf(": %s", t.Summary)
			}
			p.printf("\n    before: %s\n", orDefault(t.Precondition, "nothing recorded"))
			for _, d := range t.StepsByDeployer {
				p.printf("    steps (%s):\n", strings.Join(d.Deployers, ", "))
				for i, s := range d.Steps {
					p.printf("      %d. %s: %s\n", i+1, s.ID, s.Description)
					if s.Reason != "" {
						p.printf("%s\n", indentLines("why: "+s.Reason, "         "))
					}
				}
			}
		}
	}
	if !recorded {
		p.printf("  none\n")
	}
}
