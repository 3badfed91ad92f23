package resolver

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// outcome is what one resolver reconcile found: the Resolved condition to
// apply, the status fields the resolver owns, and how to return.
type outcome struct {
	status    metav1.ConditionStatus
	reason    string
	message   string
	candidate string
	// handled is the resolve-requested-at value this reconcile handled (CR-11).
	handled string
	// transient is returned from Reconcile, so the work queue retries with backoff.
	transient error
	// again is how soon the next reconcile continues the work (0: resolverPoll).
	again time.Duration
}

// publishContinue is how soon the reconcile after one that spent its publish budget follows.
const publishContinue = 100 * time.Millisecond

func waiting(msg string) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: domain.ReasonResolving, message: msg}
}

// publishing reports a publish that spent its budget (domain.ErrPublishUnfinished); the next
// reconcile follows after publishContinue and publishes the charts left.
func publishing(msg string) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: domain.ReasonResolving, message: msg, again: publishContinue}
}

func stalled(s *domain.Stall) *outcome {
	return &outcome{status: metav1.ConditionFalse, reason: string(s.Reason()), message: s.Message()}
}

// rejectedOverride reports a stalled bundle Job AICR rejected for an
// override component the recipe does not list as OverridePathUnknown (RES-3);
// any other outcome is returned as it is.
func rejectedOverride(out *outcome, unlisted []string) *outcome {
	if out.reason != string(domain.StallAICRInvalidRequest) {
		return out
	}
	return stalled(domain.RejectedOverride(domain.RequestInvalid(out.message), unlisted))
}

// transient reports a failure worth retrying with backoff (RES-6); a request left unanswered
// names its host and request first, so the condition says what the resolution waits on.
func transient(err error) *outcome {
	msg := "retrying after a transient failure: " + err.Error()
	if host := shared.WaitingForHost(err); host != "" {
		msg = host + "; " + msg
	}
	return &outcome{status: metav1.ConditionFalse, reason: domain.ReasonResolving, message: msg, transient: err}
}

// resolvedTo is the outcome of a resolution that recorded the candidate plan of digest.
func resolvedTo(digest string) *outcome {
	return &outcome{status: metav1.ConditionTrue, reason: domain.ReasonResolved, message: "candidate plan " + digest, candidate: digest}
}
