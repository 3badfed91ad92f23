package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const acknowledgeExample = `  # Record that the steps recorded for the release the rollout waits on are done
  kubectl aicr acknowledge rollout-3f9a1c0d2b7e4a51-1`

func newAcknowledgeCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "acknowledge ROLLOUT",
		short: "Acknowledge, as you, what the release a rollout waits on needs done first",
		long: "For a rollout waiting in AwaitingAcknowledgement: records, as you, that the precondition and steps AICR's\n" +
			"transition record lists for the release it waits on are done (kubectl aicr describe shows them under\n" +
			"Recorded steps), or, for the DRA driver after a GPU Operator upgrade, that its kubelet plugin was\n" +
			"restarted (the rollout's message says which); then the operator applies the release. Refuses a\n" +
			"rollout that is not waiting.\n" +
			decidedAgain,
		example: acknowledgeExample,
		args:    cobra.ExactArgs(1),
		validate: func(o *Options) error {
			if o.Now == nil {
				return ErrNoClock
			}
			return nil
		},
		run: runAcknowledge,
	})
}

func runAcknowledge(s *session, args []string) error {
	var release, at string
	ro, err := s.changeApproval(args[0], "acknowledge rollout", func(ro *aicrv1alpha1.RuntimeRollout) (map[string]any, error) {
		var err error
		if release, err = awaitedRelease(ro); err != nil {
			return nil, err
		}
		user, err := s.whoami()
		if err != nil {
			return nil, err
		}
		at = timestamp(s.o.Now())
		acks := make([]any, 0, len(ro.Spec.Approval.Acknowledgements)+1)
		for _, a := range ro.Spec.Approval.Acknowledgements {
			acks = append(acks, map[string]any{
				"release": a.Release, "acknowledgedBy": a.AcknowledgedBy, "acknowledgedAt": timestamp(a.AcknowledgedAt.Time),
			})
		}
		acks = append(acks, map[string]any{"release": release, "acknowledgedBy": user, "acknowledgedAt": at})
		return map[string]any{"acknowledgements": acks}, nil
	})
	if err != nil {
		return err
	}
	return s.o.say("rollout %s: %s acknowledged by %s at %s", ro.Name, release, s.user, at)
}

// awaitedRelease applies the refusals of CLI-5 and returns the release in flight.
func awaitedRelease(ro *aicrv1alpha1.RuntimeRollout) (string, error) {
	if err := ended(ro); err != nil {
		return "", err
	}
	if ro.Status.Phase != aicrv1alpha1.PhaseAwaitingAcknowledgement {
		phase := string(ro.Status.Phase)
		if phase == "" {
			phase = "unknown"
		}
		return "", fmt.Errorf("rollout %s %w (phase %s)", ro.Name, ErrNotAwaitingAcknowledgement, phase)
	}
	i := int(ro.Status.CurrentStep)
	if i < 1 || i > len(ro.Spec.Steps) {
		return "", fmt.Errorf("rollout %s %w: status.currentStep %d names no step", ro.Name, ErrNotAwaitingAcknowledgement, i)
	}
	release := ro.Spec.Steps[i-1].Release
	if ro.Spec.Approval == nil || ro.Spec.Approval.ApprovedBy == "" {
		return "", fmt.Errorf("rollout %s %w: an acknowledgement needs an approval", ro.Name, ErrNotApproved)
	}
	for _, a := range ro.Spec.Approval.Acknowledgements {
		if a.Release == release {
			return "", fmt.Errorf("rollout %s: release %s %w by %s", ro.Name, release, ErrAlreadyAcknowledged, a.AcknowledgedBy)
		}
	}
	return release, nil
}
