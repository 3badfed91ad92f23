package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// writeDescribe prints what an approver decides on (CLI-2); changes are the values changes
// of Upgrade steps AICR's verdict does not cover, by release ID (valuesChanges), and engine the
// engine's view of each step's release (engineViews, nil when not shown).
func writeDescribe(w io.Writer, ro *aicrv1alpha1.RuntimeRollout, report *configdoc.Report, changes map[string]string,
	engine []describeEngine,
) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	p := &printer{w: tw}
	row := func(k, v string) { p.printf("%s:\t%s\n", k, v) }
	row("Rollout", ro.Name)
	row("Runtime UID", ro.Spec.RuntimeUID)
	row("Transition", transition(ro))
	if ro.Spec.FromPlanDigest == "" {
		row("Target plan", ro.Spec.ToPlanDigest)
	}
	row("Phase", orDefault(string(ro.Status.Phase), "unknown (no status recorded)"))
	row("Outcome", orDefault(ro.Labels[aicrv1alpha1.LabelOutcome], "none"))
	row("Deadline", timestamp(ro.Spec.Deadline.Time))
	row("Approval", approvalText(ro))
	row("Message", orDefault(ro.Status.Message, "-"))
	row("Starting inventory", inventoryText(ro))
	if err := errors.Join(p.result("rollout"), tw.Flush()); err != nil {
		return err
	}
	if err := writeSteps(w, ro, changes, engine); err != nil {
		return err
	}
	if err := writeDisruption(w, ro); err != nil {
		return err
	}
	if err := writeApprovalReasons(w, approvalReasons(ro, changes)); err != nil {
		return err
	}
	if err := writeAssessment(w, ro, report); err != nil {
		return err
	}
	return writeAcknowledgements(w, ro)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// transition is "<from> -> <to>", or none (initial install) without an active plan.
func transition(ro *aicrv1alpha1.RuntimeRollout) string {
	if ro.Spec.FromPlanDigest == "" {
		return "none (initial install)"
	}
	return ro.Spec.FromPlanDigest + " -> " + ro.Spec.ToPlanDigest
}

// approvalText is not required, required (pending), approved by … until …, or the revocation.
func approvalText(ro *aicrv1alpha1.RuntimeRollout) string {
	a := ro.Spec.Approval
	if a == nil || a.ApprovedBy == "" {
		if !ro.Spec.ApprovalRequired {
			return "not required"
		}
		return "required, pending"
	}
	approved := "approved by " + a.ApprovedBy
	if a.ExpiresAt != nil {
		approved += " until " + timestamp(a.ExpiresAt.Time)
	}
	approved += " (reason: " + a.Reason + ")"
	if a.RevokedBy == "" {
		return approved
	}
	revoked := "revoked by " + a.RevokedBy
	if a.RevokedAt != nil {
		revoked += " at " + timestamp(a.RevokedAt.Time)
	}
	return revoked + " (reason: " + a.RevokeReason + "); was " + approved
}

// inventoryText is the size and digest of the starting inventory: the digest the spec
// records and the size the operator annotated when it created the rollout.
func inventoryText(ro *aicrv1alpha1.RuntimeRollout) string {
	if ro.Spec.StartingInventoryDigest == "" {
		return "empty"
	}
	size, ok := ro.Annotations[aicrv1alpha1.AnnotationStartingInventorySize]
	if !ok {
		return "size not recorded, " + ro.Spec.StartingInventoryDigest
	}
	return fmt.Sprintf("%s releases, %s", size, ro.Spec.StartingInventoryDigest)
}

// writeSteps prints the steps table; with engine (engineViews) it adds the engine's sync and
// health next to the state the operator recorded, and the engine's details below the table.
func writeSteps(w io.Writer, ro *aicrv1alpha1.RuntimeRollout, changes map[string]string, engine []describeEngine) error {
	p := &printer{w: w}
	p.printf("\nSteps (%d):\n", len(ro.Spec.Steps))
	if len(ro.Spec.Steps) == 0 || p.err != nil {
		return p.result("steps")
	}
	states := make(map[string]aicrv1alpha1.ReleaseStatus, len(ro.Status.Releases))
	for _, r := range ro.Status.Releases {
		states[r.Release] = r
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	tp := &printer{w: tw}
	engineHeader := ""
	if engine != nil {
		engineHeader = "SYNC\tHEALTH\t"
	}
	tp.printf("  STEP\tRELEASE\tOPERATION\tASSESSMENT\tCRDS\t%sSTATE\n", engineHeader)
	for i, s := range ro.Spec.Steps {
		crds := "-"
		if s.ChangesCRDs {
			crds = "changes CRDs"
		}
		engineCells := ""
		if engine != nil {
			engineCells = engineSyncText(engine[i]) + "\t" + orDefault(engine[i].Health, "-") + "\t"
		}
		tp.printf("  %d/%d\t%s\t%s\t%s\t%s\t%s%s\n", i+1, len(ro.Spec.Steps), s.Release, s.Operation,
			assessmentText(s, changes), crds, engineCells, stepState(ro, i, states))
	}
	if err := errors.Join(tp.result("steps"), tw.Flush()); err != nil {
		return err
	}
	return writeEngineDetails(w, ro, engine)
}

// assessmentText is AICR's verdict for the step and, for an Upgrade whose values changed in a
// way the verdict does not cover, why ("safe; values changed by overrides: gpu-operator:driver.repository").
func assessmentText(s aicrv1alpha1.Step, changes map[string]string) string {
	verdict := orDefault(string(s.Assessment), "none")
	if why := changes[s.Release]; why != "" && s.Operation == aicrv1alpha1.OperationUpgrade {
		return verdict + "; " + why
	}
	return verdict
}

// stepState is the observed state of step i: in flight, Ready, Failed, …; unknown without status.
func stepState(ro *aicrv1alpha1.RuntimeRollout, i int, states map[string]aicrv1alpha1.ReleaseStatus) string {
	st, ok := states[ro.Spec.Steps[i].Release]
	switch {
	case !ok && ro.Status.Phase == "":
		return "unknown"
	case !ok && ro.Labels[aicrv1alpha1.LabelOutcome] != "":
		return "not started"
	case !ok:
		return "Pending"
	case st.State == "InFlight":
		return "in flight"
	}
	state := string(st.State)
	if st.Message != "" {
		state += ": " + st.Message
	}
	return state
}

func writeAcknowledgements(w io.Writer, ro *aicrv1alpha1.RuntimeRollout) error {
	if ro.Spec.Approval == nil || len(ro.Spec.Approval.Acknowledgements) == 0 {
		return nil
	}
	p := &printer{w: w}
	p.printf("\n")
	for _, a := range ro.Spec.Approval.Acknowledgements {
		p.printf("Acknowledged: %s by %s at %s\n", a.Release, a.AcknowledgedBy, timestamp(a.AcknowledgedAt.Time))
	}
	return p.result("acknowledgements")
}

// indentLines prefixes every line of s.
func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}
