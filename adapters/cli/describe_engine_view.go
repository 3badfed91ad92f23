package cli

import (
	"io"
	"strings"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// engineSyncText is the SYNC cell of a step: Synced or OutOfSync as Argo CD shows them, else
// why there is nothing to show.
func engineSyncText(e describeEngine) string {
	switch e.Sync {
	case engineNotFound:
		return "not found"
	case engineForeign:
		return "foreign"
	case engineUnknown:
		return "unknown"
	}
	return e.Sync
}

// engineDetail is what the table cannot say of a step's engine object: whose a foreign object
// is, a sync operation that runs or failed, the engine's message; "" when there is nothing.
func engineDetail(e describeEngine) string {
	if e.Sync == engineForeign {
		if e.OwnerRuntimeUID == "" {
			return "its Application records no runtime (not written by the operator): its state is not this step's"
		}
		return "its Application records runtime " + e.OwnerRuntimeUID + ", not this one: its state is not this step's"
	}
	var parts []string
	if e.Drift != "" {
		parts = append(parts, "drifted: "+e.Drift)
	}
	switch ports.OperationState(e.Operation) {
	case ports.OperationRunning, ports.OperationFailed:
		parts = append(parts, "sync "+e.Operation)
	case ports.OperationNone, ports.OperationSucceeded: // nothing beyond the SYNC cell
	}
	if e.Message != "" {
		parts = append(parts, strings.ReplaceAll(e.Message, "\n", " "))
	}
	return strings.Join(parts, ": ")
}

// writeEngineDetails prints, under the steps table, the engineDetail of each step that has one.
func writeEngineDetails(w io.Writer, ro *aicrv1alpha1.RuntimeRollout, engine []describeEngine) error {
	p := &printer{w: w}
	heading := "Argo CD details:\n"
	for i, e := range engine {
		detail := engineDetail(e)
		if detail == "" {
			continue
		}
		p.printf("%s  %d/%d %s: %s\n", heading, i+1, len(ro.Spec.Steps), ro.Spec.Steps[i].Release, detail)
		heading = ""
	}
	return p.result("Argo CD details")
}
