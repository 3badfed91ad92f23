package rollout

import (
	"strconv"

	"github.com/go-logr/logr"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// logDecision writes, at info level, one line for a decision that records an Event (a rollout
// started, approved, acknowledged, validated or ended; a step started or finished), with the
// rollout, its target plan, and the step and release it acted on.
func logDecision(log logr.Logger, ro *aicrv1alpha1.RuntimeRollout, d app.Decision, reason domain.EventReason) {
	kv := []any{"rollout", ro.Name, "plan", ro.Spec.ToPlanDigest, "phase", string(d.Out.Phase())}
	if i := d.From.Step; i < len(ro.Spec.Steps) {
		kv = append(kv, "step", strconv.Itoa(i+1)+"/"+strconv.Itoa(len(ro.Spec.Steps)),
			"release", ro.Spec.Steps[i].Release, "operation", string(ro.Spec.Steps[i].Operation))
	}
	log.Info(reason.String()+": "+domain.Truncate(d.Out.Event), kv...)
}

// logStall writes, at info level, one line for a stall the rollout newly reports.
func logStall(log logr.Logger, ro *aicrv1alpha1.RuntimeRollout, s *domain.Stall) {
	log.Info("stalled "+string(s.Reason())+": "+domain.Truncate(s.Message()),
		"rollout", ro.Name, "plan", ro.Spec.ToPlanDigest, "reason", string(s.Reason()))
}
