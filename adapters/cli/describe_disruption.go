package cli

import (
	"io"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// writeDisruption marks each step that may disrupt the accelerated nodes and why, says that
// the others cannot, and lists the steps approvers let go outside the change policy.
func writeDisruption(w io.Writer, ro *aicrv1alpha1.RuntimeRollout) error {
	p := &printer{w: w}
	n := 0
	for _, s := range ro.Spec.Steps {
		if s.Disruption != "" {
			n++
		}
	}
	if n == 0 {
		p.printf("\nDisruptive steps: none (no step can disrupt the accelerated nodes)\n")
		return p.result("disruptive steps")
	}
	p.printf("\nDisruptive steps (%d; they start only as the runtime's changePolicy allows, the others at once):\n", n)
	for i, s := range ro.Spec.Steps {
		if s.Disruption != "" {
			p.printf("  %d/%d %s (%s): %s\n", i+1, len(ro.Spec.Steps), s.Release, s.Operation, s.Disruption)
		}
	}
	if a := ro.Spec.Approval; a != nil {
		for _, o := range a.DisruptionOverrides {
			p.printf("Let go: %s by %s at %s (reason: %s)\n", o.Release, o.OverriddenBy, timestamp(o.OverriddenAt.Time), o.Reason)
		}
	}
	return p.result("disruptive steps")
}
