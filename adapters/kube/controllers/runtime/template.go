package runtime

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// newRolloutTemplate is the rollout toward obs.target (RO-2): steps and approvalRequired from
// the domain's transition, the live inventory's digest (and its size, in an annotation) and
// the deadline.
func newRolloutTemplate(obs *observation, t domain.Transition, inventory, assessmentDigest string,
	deadline time.Time) *aicrv1alpha1.RuntimeRollout {
	steps := make([]aicrv1alpha1.Step, 0, len(t.Steps))
	for _, s := range t.Steps {
		steps = append(steps, aicrv1alpha1.Step{
			Release: s.Release.ID, Operation: aicrv1alpha1.Operation(s.Operation),
			Assessment: aicrv1alpha1.Assessment(s.Assessment), ChangesCRDs: s.ChangesCRDs,
			AcknowledgeBeforeApply: s.AcknowledgeBeforeApply, Disruption: s.Disruption,
		})
	}
	return &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		aicrv1alpha1.AnnotationStartingInventorySize: strconv.Itoa(len(obs.live)),
	}}, Spec: aicrv1alpha1.RuntimeRolloutSpec{
		RuntimeUID: obs.uid, FromPlanDigest: obs.active, ToPlanDigest: obs.target,
		StartingInventoryDigest: inventory, AssessmentDigest: assessmentDigest,
		Deadline: metav1.NewTime(deadline.UTC().Truncate(time.Second)), ApprovalRequired: t.ApprovalRequired, Steps: steps,
	}}
}

// adoptable lists the releases live under spec.adoption.runtimeUID.
func adoptable(cr *aicrv1alpha1.ClusterRuntime, live []ports.ReleaseStatus) map[ports.ReleaseRef]bool {
	if cr.Spec.Adoption == nil {
		return nil
	}
	out := map[ports.ReleaseRef]bool{}
	for _, s := range live {
		if s.Owner.RuntimeUID == cr.Spec.Adoption.RuntimeUID {
			out[s.Ref] = true
		}
	}
	return out
}
