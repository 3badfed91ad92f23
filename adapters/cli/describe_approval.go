package cli

import (
	"io"
	"strings"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// unexplainedApproval is printed when the operator required an approval for a reason the
// rollout's steps do not show.
const unexplainedApproval = "not shown by the steps: an install with overrides that reach it, or a values " +
	"change of a plan you may not read"

// approvalReasons is why the rollout needs an approver, step by step, by the rule the operator
// decided with (domain.ApprovalReasons) applied to the rollout's steps and the values changes
// describe found; nil when it needs none.
func approvalReasons(ro *aicrv1alpha1.RuntimeRollout, changes map[string]string) []domain.ApprovalReason {
	if !ro.Spec.ApprovalRequired {
		return nil
	}
	steps := make([]domain.Step, 0, len(ro.Spec.Steps))
	for _, s := range ro.Spec.Steps {
		step := domain.Step{Release: ports.ReleaseRef{ID: s.Release}, Operation: domain.Operation(s.Operation),
			Assessment: ports.UpgradeVerdict(s.Assessment), ChangesCRDs: s.ChangesCRDs}
		if s.Operation == aicrv1alpha1.OperationUpgrade {
			step.ValuesChange = changes[s.Release]
		}
		steps = append(steps, step)
	}
	reasons := domain.ApprovalReasons(ro.Spec.FromPlanDigest == "", steps)
	if len(reasons) == 0 {
		return []domain.ApprovalReason{{Why: unexplainedApproval}}
	}
	return reasons
}

// writeApprovalReasons prints approvalReasons under "Approval required because:", one line per
// release.
func writeApprovalReasons(w io.Writer, reasons []domain.ApprovalReason) error {
	if len(reasons) == 0 {
		return nil
	}
	p := &printer{w: w}
	p.printf("\nApproval required because:\n")
	for i := 0; i < len(reasons); {
		release, why := reasons[i].Release, []string{reasons[i].Why}
		for i++; i < len(reasons) && reasons[i].Release == release; i++ {
			why = append(why, reasons[i].Why)
		}
		if release == "" {
			p.printf("  %s\n", strings.Join(why, "; "))
			continue
		}
		p.printf("  %s: %s\n", release, strings.Join(why, "; "))
	}
	return p.result("approval reasons")
}
