package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const revokeExample = `  # Revoke an approval: the step in flight finishes, no further step starts
  kubectl aicr revoke rollout-3f9a1c0d2b7e4a51-1 --reason "Training job not checkpointed"`

func newRevokeCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "revoke ROLLOUT --reason TEXT",
		short: "Revoke a rollout's approval as you",
		long: "Records your username, the time and the reason as the revocation. The step in flight finishes, no\n" +
			"further step starts, and the rollout ends Revoked. Refuses a rollout that is not approved, already\n" +
			"revoked, or has ended; the API server also refuses one in Validating.\n" +
			decidedAgain,
		example:  revokeExample,
		args:     cobra.ExactArgs(1),
		validate: validateReason,
		run:      runRevoke,
	})
}

func runRevoke(s *session, args []string) error {
	var at string
	ro, err := s.changeApproval(args[0], "revoke rollout", func(ro *aicrv1alpha1.RuntimeRollout) (map[string]any, error) {
		if err := checkRevocable(ro); err != nil {
			return nil, err
		}
		user, err := s.whoami()
		if err != nil {
			return nil, err
		}
		at = timestamp(s.o.Now())
		return map[string]any{"revokedBy": user, "revokedAt": at, "revokeReason": s.o.flags.reason}, nil
	})
	if err != nil {
		return err
	}
	return s.o.say("rollout %s revoked by %s at %s", ro.Name, s.user, at)
}

// checkRevocable applies the refusals of CLI-4.
func checkRevocable(ro *aicrv1alpha1.RuntimeRollout) error {
	if err := ended(ro); err != nil {
		return err
	}
	a := ro.Spec.Approval
	if a == nil || a.ApprovedBy == "" {
		return fmt.Errorf("rollout %s %w: there is nothing to revoke", ro.Name, ErrNotApproved)
	}
	if a.RevokedBy != "" {
		return fmt.Errorf("rollout %s %w by %s", ro.Name, ErrAlreadyRevoked, a.RevokedBy)
	}
	return nil
}
