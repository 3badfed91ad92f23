package cli

import (
	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// describeDocument is what describe prints, for -o json and -o yaml: the same facts as the
// text, as fields instead of sentences.
type describeDocument struct {
	Rollout           string                  `json:"rollout"`
	RuntimeUID        string                  `json:"runtimeUID"`
	FromPlanDigest    string                  `json:"fromPlanDigest,omitempty"`
	ToPlanDigest      string                  `json:"toPlanDigest"`
	Phase             string                  `json:"phase,omitempty"`
	Outcome           string                  `json:"outcome,omitempty"`
	Deadline          string                  `json:"deadline"`
	ApprovalRequired  bool                    `json:"approvalRequired"`
	ApprovalReasons   []domain.ApprovalReason `json:"approvalReasons,omitempty"`
	Approval          *aicrv1alpha1.Approval  `json:"approval,omitempty"`
	Message           string                  `json:"message,omitempty"`
	StartingInventory describeInventory       `json:"startingInventory"`
	Steps             []describeStep          `json:"steps"`
	AssessmentDigest  string                  `json:"assessmentDigest,omitempty"`
	Assessment        *configdoc.Report       `json:"assessment,omitempty"`
	Events            []describeEvent         `json:"events"`
}

// describeEvent is one of the rollout's newest Events.
type describeEvent struct {
	Type     string `json:"type"`
	Reason   string `json:"reason"`
	LastSeen string `json:"lastSeen"`
	Count    int32  `json:"count"`
	Message  string `json:"message"`
}

// describeInventory is the starting inventory: the digest the spec records and the size the
// operator annotated, empty when not recorded.
type describeInventory struct {
	Digest string `json:"digest,omitempty"`
	Size   string `json:"size,omitempty"`
}

// describeStep is one row of the steps table.
type describeStep struct {
	Release      string `json:"release"`
	Operation    string `json:"operation"`
	Assessment   string `json:"assessment,omitempty"`
	ValuesChange string `json:"valuesChange,omitempty"`
	ChangesCRDs  bool   `json:"changesCRDs"`
	// Disruption says why the step may disrupt the accelerated nodes ("" when it cannot).
	Disruption string `json:"disruption,omitempty"`
	State      string `json:"state"`
	// Engine is the deployment engine's view of the release, absent when describe shows none.
	Engine *describeEngine `json:"engine,omitempty"`
}

// newDescribeDocument builds the structured form of writeDescribe's text.
func newDescribeDocument(ro *aicrv1alpha1.RuntimeRollout, report *configdoc.Report,
	changes map[string]string, engine []describeEngine, events []corev1.Event,
) describeDocument {
	d := describeDocument{
		Rollout: ro.Name, RuntimeUID: ro.Spec.RuntimeUID,
		FromPlanDigest: ro.Spec.FromPlanDigest, ToPlanDigest: ro.Spec.ToPlanDigest,
		Phase: string(ro.Status.Phase), Outcome: ro.Labels[aicrv1alpha1.LabelOutcome],
		Deadline: timestamp(ro.Spec.Deadline.Time), ApprovalRequired: ro.Spec.ApprovalRequired,
		ApprovalReasons: approvalReasons(ro, changes),
		Approval:        ro.Spec.Approval, Message: ro.Status.Message,
		StartingInventory: describeInventory{
			Digest: ro.Spec.StartingInventoryDigest,
			Size:   ro.Annotations[aicrv1alpha1.AnnotationStartingInventorySize],
		},
		Steps:  make([]describeStep, 0, len(ro.Spec.Steps)),
		Events: make([]describeEvent, 0, len(events)),
	}
	for _, e := range events {
		d.Events = append(d.Events, describeEvent{Type: e.Type, Reason: e.Reason, LastSeen: timestamp(lastSeen(e)),
			Count: max(e.Count, 1), Message: e.Message})
	}
	if report != nil {
		d.AssessmentDigest, d.Assessment = ro.Spec.AssessmentDigest, report
	}
	states := make(map[string]aicrv1alpha1.ReleaseStatus, len(ro.Status.Releases))
	for _, r := range ro.Status.Releases {
		states[r.Release] = r
	}
	for i, s := range ro.Spec.Steps {
		step := describeStep{
			Release: s.Release, Operation: string(s.Operation), Assessment: string(s.Assessment),
			ChangesCRDs: s.ChangesCRDs, Disruption: s.Disruption, State: stepState(ro, i, states),
		}
		if s.Operation == aicrv1alpha1.OperationUpgrade {
			step.ValuesChange = changes[s.Release]
		}
		if engine != nil {
			step.Engine = &engine[i]
		}
		d.Steps = append(d.Steps, step)
	}
	return d
}
