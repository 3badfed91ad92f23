package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const approveExample = `  # Approve a rollout for a two-hour maintenance window
  kubectl aicr approve rollout-3f9a1c0d2b7e4a51-1 --expires 2h --reason "Maintenance window"

  # Approve until the rollout's deadline, as another user of the kubeconfig
  kubectl aicr approve rollout-3f9a1c0d2b7e4a51-1 --reason "Change 4711" --context prod --as alice`

func newApproveCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "approve ROLLOUT --reason TEXT [--expires DURATION]",
		short: "Approve a rollout as you (set-once spec.approval)",
		long: "Asks the API server who you are (a SelfSubjectReview), then sets the rollout's spec.approval to your\n" +
			"username, the expiry and the reason. Without --expires the approval lasts until the rollout's deadline.\n" +
			"Refuses a rollout that has ended, is already approved or needs no approval, and without --expires one\n" +
			"whose deadline has passed; an --expires that ends after the deadline is refused too (the API server\n" +
			"refuses an approval that outlives its rollout). An approval can be neither changed nor extended.\n" +
			decidedAgain,
		example:  approveExample,
		args:     cobra.ExactArgs(1),
		validate: validateApprove,
		run:      runApprove,
	})
}

func validateApprove(o *Options) error {
	err := validateReason(o)
	if o.flags.expiresGiven && o.flags.expires < time.Second {
		err = errors.Join(err, ErrExpiresNotPositive)
	}
	return err
}

func runApprove(s *session, args []string) error {
	var expiresAt time.Time
	ro, err := s.changeApproval(args[0], "approve rollout", func(ro *aicrv1alpha1.RuntimeRollout) (map[string]any, error) {
		var err error
		if expiresAt, err = approvalExpiry(ro, s.o.Now(), s.o.flags.expires); err != nil {
			return nil, err
		}
		user, err := s.whoami()
		if err != nil {
			return nil, err
		}
		return map[string]any{"approvedBy": user, "expiresAt": timestamp(expiresAt), "reason": s.o.flags.reason}, nil
	})
	if err != nil {
		return err
	}
	return s.o.say("rollout %s approved by %s until %s", ro.Name, s.user, timestamp(expiresAt))
}

// approvalExpiry applies the refusals of CLI-3 and returns when the approval ends.
func approvalExpiry(ro *aicrv1alpha1.RuntimeRollout, now time.Time, expires time.Duration) (time.Time, error) {
	if err := ended(ro); err != nil {
		return time.Time{}, err
	}
	if a := ro.Spec.Approval; a != nil && a.ApprovedBy != "" {
		until := ""
		if a.ExpiresAt != nil {
			until = " until " + timestamp(a.ExpiresAt.Time)
		}
		return time.Time{}, fmt.Errorf("rollout %s %w by %s%s: an approval can be neither changed nor extended",
			ro.Name, ErrAlreadyApproved, a.ApprovedBy, until)
	}
	if !ro.Spec.ApprovalRequired {
		return time.Time{}, fmt.Errorf("rollout %s %w: spec.approvalRequired is false", ro.Name, ErrNoApprovalNeeded)
	}
	deadline := ro.Spec.Deadline.Time
	if !now.Before(deadline) {
		return time.Time{}, fmt.Errorf("rollout %s: its %w (%s); the operator ends it Expired, approve the next one",
			ro.Name, ErrDeadlinePassed, timestamp(deadline))
	}
	if expires <= 0 {
		return deadline.Truncate(time.Second), nil
	}
	until := now.Add(expires).Truncate(time.Second)
	if until.After(deadline) {
		return time.Time{}, fmt.Errorf("rollout %s: --expires %s ends at %s, %w (%s); omit --expires to approve it until its deadline",
			ro.Name, expires, timestamp(until), ErrPastDeadline, timestamp(deadline))
	}
	return until, nil
}
