package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

const retryExample = `  # Retry the transition whose last rollout failed, expired or was revoked, once its cause is fixed
  kubectl aicr retry`

const resolveExample = `  # Resolve again with a new snapshot, after the GPU nodes or the AICR release changed
  kubectl aicr resolve`

// retryable are the Stalled reasons of a runtime whose last rollout a retry starts again.
var retryable = []domain.StallReason{domain.StallRolloutFailed, domain.StallRolloutExpired, domain.StallRolloutRevoked}

func newRetryCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "retry",
		short: "Retry the last rollout that failed, expired or was revoked",
		long: "Sets the ClusterRuntime's operator.aicr.run/retry-requested-at annotation to the current time. The\n" +
			"operator then creates a fresh rollout of the same transition from the live inventory and records the\n" +
			"value in status.handledRequests.retryRequestedAt; a rollout that needs an approval needs a new one.\n" +
			"Refuses a runtime that is not Stalled with RolloutFailed, RolloutExpired or RolloutRevoked.\n" +
			decidedAgainRuntime,
		example:  retryExample,
		args:     cobra.NoArgs,
		validate: needClock,
		run: func(s *session, _ []string) error {
			return s.request(aicrv1alpha1.AnnotationRetryRequestedAt, "retry", checkRetryable)
		},
	})
}

func newResolveCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "resolve",
		short: "Resolve the ClusterRuntime again with a new snapshot",
		long: "Sets the ClusterRuntime's operator.aicr.run/resolve-requested-at annotation to the current time. The\n" +
			"snapshot, recipe and bundle Jobs run again and the value is recorded in\n" +
			"status.handledRequests.resolveRequestedAt; a result with another digest becomes the candidate plan.\n" +
			decidedAgainRuntime,
		example:  resolveExample,
		args:     cobra.NoArgs,
		validate: needClock,
		run: func(s *session, _ []string) error {
			return s.request(aicrv1alpha1.AnnotationResolveRequestedAt, "resolution", nil)
		},
	})
}

// needClock refuses a command that writes the time without a clock.
func needClock(o *Options) error {
	if o.Now == nil {
		return ErrNoClock
	}
	return nil
}

// request sets the request annotation to the current time (RFC 3339, seconds), after check,
// if any, accepted the runtime. A value equal to the one already set would not be a new
// request, so it is refused.
func (s *session) request(annotation, what string, check func(*aicrv1alpha1.ClusterRuntime) error) error {
	at := timestamp(s.o.Now())
	err := s.changeRuntime("request "+what+" of", func(cr *aicrv1alpha1.ClusterRuntime) (map[string]any, error) {
		if check != nil {
			if err := check(cr); err != nil {
				return nil, err
			}
		}
		if cr.Annotations[annotation] == at {
			return nil, fmt.Errorf("clusterruntime %s: a %s %w at %s: ask again in a second", cr.Name, what, ErrAlreadyRequested, at)
		}
		return map[string]any{"metadata": map[string]any{"annotations": map[string]any{annotation: at}}}, nil
	})
	if err != nil {
		return err
	}
	return s.o.say("clusterruntime %s: %s requested at %s (%s)", aicrv1alpha1.ClusterRuntimeName, what, at, annotation)
}

// checkRetryable refuses a runtime whose last rollout did not fail, expire or get revoked.
func checkRetryable(cr *aicrv1alpha1.ClusterRuntime) error {
	stalled := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled)
	if stalled != nil && stalled.Status == "True" {
		for _, r := range retryable {
			if stalled.Reason == string(r) {
				return nil
			}
		}
	}
	state := "not Stalled"
	if stalled != nil && stalled.Status == "True" {
		state = "Stalled with " + stalled.Reason
	}
	return fmt.Errorf("clusterruntime %s %w: it is %s, not with RolloutFailed, RolloutExpired or RolloutRevoked",
		cr.Name, ErrNothingToRetry, state)
}
