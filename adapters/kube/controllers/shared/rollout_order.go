package shared

import (
	"strconv"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// OlderRollout orders rollouts by their sequence annotation, which survives a restore (a
// rollout without one is older than one with one); then by creation time (second precision);
// within one second a rollout starting from the plan another one rolled out is the newer, then
// by name.
func OlderRollout(a, b *aicrv1alpha1.RuntimeRollout) bool {
	sa, sb := RolloutSequence(a), RolloutSequence(b)
	switch {
	case sa != sb:
		return sa < sb
	case !a.CreationTimestamp.Equal(&b.CreationTimestamp):
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	case a.Spec.ToPlanDigest == b.Spec.FromPlanDigest && b.Spec.FromPlanDigest != "":
		return true
	case b.Spec.ToPlanDigest == a.Spec.FromPlanDigest && a.Spec.FromPlanDigest != "":
		return false
	case a.Spec.FromPlanDigest == "" && b.Spec.FromPlanDigest != "":
		return true
	case b.Spec.FromPlanDigest == "" && a.Spec.FromPlanDigest != "":
		return false
	}
	return a.Name < b.Name
}

// RolloutSequence is the rollout's sequence annotation; 0 when it has none or it does not parse
// (a rollout an operator without sequences created).
func RolloutSequence(ro *aicrv1alpha1.RuntimeRollout) int {
	n, err := strconv.Atoi(ro.Annotations[aicrv1alpha1.AnnotationSequence])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
