package runtime

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// signals records the runtime's Events of state changes (OPS-1): a Warning whose
// reason is the stall reason when one of the runtime's own stalls begins (engine, plans,
// admission policies, a refused engine suspension), EngineSuspended / EngineResumed when
// Ready enters or leaves EngineSuspended, and RetryHandled when a status write handled a
// retry request. A stall is recorded once: not again on the next
// reconcile, even when the cache has not seen the status that records it yet. The stalls of
// a failed Resolved and of a rollout are recorded by the resolver and the rollout controller.
type signals struct {
	mu sync.Mutex
	// uid is the runtime the remembered state belongs to.
	uid string
	// stall is the own stall last recorded (nil: none since).
	stall *domain.Stall
	// ready is the Ready reason last derived.
	ready string
	// retry is the retry request last recorded as handled.
	retry string
	// unplanned is the EngineObjectsPlanned message last derived.
	unplanned string
}

// record emits the Events of the change from the status read (cr) to the status derived (want).
func (s *signals) record(rec record.EventRecorder, cr *aicrv1alpha1.ClusterRuntime, obs *observation, want runtimeStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uid != string(cr.UID) {
		s.uid, s.stall, s.ready, s.retry, s.unplanned = string(cr.UID), nil, "", "", ""
		if c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionReady); c != nil {
			s.ready = c.Reason
		}
		if c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionEngineObjectsPlanned); c != nil {
			s.unplanned = c.Message
		}
	}
	s.recordUnplanned(rec, cr, want)
	own := ownStall(obs)
	if own != nil && !sameStall(own, s.stall) && !recorded(cr, own) {
		rec.Event(cr, corev1.EventTypeWarning, string(own.Reason()), domain.Truncate(own.Message()))
	}
	s.stall = own
	ready := meta.FindStatusCondition(want.conditions, aicrv1alpha1.ConditionReady)
	if ready == nil {
		return
	}
	switch {
	case ready.Reason == s.ready:
	case ready.Reason == domain.ReasonEngineSuspended:
		rec.Event(cr, corev1.EventTypeNormal, domain.EventEngineSuspended.String(), domain.Truncate(ready.Message))
	case s.ready == domain.ReasonEngineSuspended && !cr.Spec.SuspendEngine:
		rec.Event(cr, corev1.EventTypeNormal, domain.EventEngineResumed.String(),
			"spec.suspendEngine lifted: automated sync is turned back on for the runtime's engine objects")
	}
	s.ready = ready.Reason
}

// retryHandled records RetryHandled once for the retry request handled, the value a status
// write just recorded in place of the one the status read held; rollout is the rollout the
// request created, or "" when no rollout was due. It runs after record, which keys the
// remembered state to the runtime.
func (s *signals) retryHandled(rec record.EventRecorder, cr *aicrv1alpha1.ClusterRuntime, handled, rollout string) {
	if handled == "" || handled == cr.Status.HandledRequests.RetryRequestedAt {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retry == handled {
		return
	}
	s.retry = handled
	if rollout == "" {
		rec.Eventf(cr, corev1.EventTypeNormal, domain.EventRetryHandled.String(),
			"retry request %s handled: no rollout was due (the runtime's conditions say why)", handled)
		return
	}
	rec.Eventf(cr, corev1.EventTypeNormal, domain.EventRetryHandled.String(),
		"retry request %s handled: rollout %s retries the transition", handled, rollout)
}

// recorded reports whether the status read already records stall as Stalled: a restarted
// operator does not record a stall that began before again.
func recorded(cr *aicrv1alpha1.ClusterRuntime, stall *domain.Stall) bool {
	c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled)
	return c != nil && c.Status == "True" && sameStall(stall, domain.StallFromCondition(c.Reason, c.Message))
}

func sameStall(a, b *domain.Stall) bool {
	return a != nil && b != nil && a.Reason() == b.Reason() && domain.Truncate(a.Message()) == domain.Truncate(b.Message())
}

// recordUnplanned records a Warning UnplannedEngineObjects when EngineObjectsPlanned turns
// False or names other objects: engine objects no plan names appeared in the operator's project.
func (s *signals) recordUnplanned(rec record.EventRecorder, cr *aicrv1alpha1.ClusterRuntime, want runtimeStatus) {
	c := meta.FindStatusCondition(want.conditions, aicrv1alpha1.ConditionEngineObjectsPlanned)
	if c == nil || c.Message == s.unplanned {
		return
	}
	s.unplanned = c.Message
	if c.Status == metav1.ConditionFalse {
		rec.Event(cr, corev1.EventTypeWarning, domain.EventUnplannedEngineObjects.String(), domain.Truncate(c.Message))
	}
}
