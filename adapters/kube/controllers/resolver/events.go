package resolver

import (
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// event records on cr an Event the domain names; a stall is recorded as the message of
// domain.EventResolveStageFailed.
func (r *Reconciler) event(cr *aicrv1alpha1.ClusterRuntime, typ string, reason domain.EventReason, format string, args ...any) {
	r.Recorder.Eventf(cr, typ, reason.String(), format, args...)
}
