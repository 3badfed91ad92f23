package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const overrideExample = `  # Let the step in flight go now, although the change policy holds it
  kubectl aicr override rollout-3f9a1c0d2b7e4a51-1 --reason "job checkpointed"

  # Let a later disruptive step go before the rollout reaches it
  kubectl aicr override rollout-3f9a1c0d2b7e4a51-1 --release nvidia-dra-driver-gpu --reason "nodes drained"`

func newOverrideCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "override ROLLOUT --reason TEXT [--release RELEASE]",
		short: "Let a disruptive step go, as you, outside the change policy",
		long: "Records, as you, an override of a step that may disrupt the accelerated nodes: the step starts\n" +
			"outside a change window, in a freeze or while protected workloads run. Without --release it is the\n" +
			"step in flight. The override is set once, kept in the rollout's evidence, and named in the step's\n" +
			"start Event. Refuses a rollout that has ended, a release that is not a disruptive step of it, and a\n" +
			"release already overridden.\n" +
			decidedAgain,
		example:  overrideExample,
		args:     cobra.ExactArgs(1),
		validate: validateReason,
		run:      runOverride,
	})
}

func runOverride(s *session, args []string) error {
	var release, at string
	ro, err := s.changeApproval(args[0], "override rollout", func(ro *aicrv1alpha1.RuntimeRollout) (map[string]any, error) {
		var err error
		if release, err = overridableRelease(ro, s.o.flags.release); err != nil {
			return nil, err
		}
		user, err := s.whoami()
		if err != nil {
			return nil, err
		}
		at = timestamp(s.o.Now())
		var earlier []aicrv1alpha1.DisruptionOverride
		if ro.Spec.Approval != nil {
			earlier = ro.Spec.Approval.DisruptionOverrides
		}
		overrides := make([]any, 0, len(earlier)+1)
		for _, o := range earlier {
			overrides = append(overrides, map[string]any{"release": o.Release, "overriddenBy": o.OverriddenBy,
				"overriddenAt": timestamp(o.OverriddenAt.Time), "reason": o.Reason})
		}
		overrides = append(overrides, map[string]any{"release": release, "overriddenBy": user, "overriddenAt": at,
			"reason": s.o.flags.reason})
		return map[string]any{"disruptionOverrides": overrides}, nil
	})
	if err != nil {
		return err
	}
	return s.o.say("rollout %s: %s let go by %s at %s outside the change policy", ro.Name, release, s.user, at)
}

// overridableRelease returns release, or the release of the step in flight when it is empty,
// once it is a disruptive step of the rollout, not yet overridden, of a rollout not ended.
func overridableRelease(ro *aicrv1alpha1.RuntimeRollout, release string) (string, error) {
	if err := ended(ro); err != nil {
		return "", err
	}
	if release == "" {
		i := int(ro.Status.CurrentStep)
		if i < 1 || i > len(ro.Spec.Steps) {
			return "", fmt.Errorf("rollout %s %w: name the release with --release", ro.Name, ErrNoStepInFlight)
		}
		release = ro.Spec.Steps[i-1].Release
	}
	disruptive := false
	for _, st := range ro.Spec.Steps {
		disruptive = disruptive || (st.Release == release && st.Disruption != "")
	}
	if !disruptive {
		return "", fmt.Errorf("rollout %s: release %s %w", ro.Name, release, ErrNotDisruptive)
	}
	if a := ro.Spec.Approval; a != nil {
		for _, o := range a.DisruptionOverrides {
			if o.Release == release {
				return "", fmt.Errorf("rollout %s: release %s %w by %s", ro.Name, release, ErrAlreadyOverridden, o.OverriddenBy)
			}
		}
	}
	return release, nil
}
