package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// apiCommand is a command that talks to the API server under one deadline.
type apiCommand struct {
	use, short, long, example string
	args                      cobra.PositionalArgs
	validate                  func(o *Options) error
	run                       func(s *session, args []string) error
}

// newAPICommand builds the cobra command of c: flags come from the root, so every command
// accepts every flag, before or after the name (CLI-1). A command whose use names a ROLLOUT
// completes rollout names.
func newAPICommand(o *Options, c apiCommand) *cobra.Command {
	cmd := &cobra.Command{
		Use:     c.use,
		Short:   c.short,
		Long:    c.long,
		Example: c.example,
		Args:    c.args,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.flags.expiresGiven = cmd.Flags().Changed("expires")
			if err := o.preflight(cmd); err != nil {
				return err
			}
			if c.validate != nil {
				if err := c.validate(o); err != nil {
					return err
				}
			}
			s, cancel, err := o.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer cancel()
			return c.run(s, args)
		},
	}
	if strings.Contains(c.use, "ROLLOUT") {
		cmd.ValidArgsFunction = completeRollouts(o)
	}
	return cmd
}

// validateReason checks --reason (approve, revoke).
func validateReason(o *Options) error {
	var errs []error
	switch r := strings.TrimSpace(o.flags.reason); {
	case r == "":
		errs = append(errs, ErrReasonRequired)
	case utf8.RuneCountInString(o.flags.reason) > MaxReasonLength:
		errs = append(errs, ErrReasonTooLong)
	}
	if o.Now == nil {
		errs = append(errs, ErrNoClock)
	}
	return errors.Join(errs...)
}

// ended refuses a rollout that carries an outcome label.
func ended(ro *aicrv1alpha1.RuntimeRollout) error {
	if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
		return fmt.Errorf("rollout %s %w (outcome %s)", ro.Name, ErrEnded, outcome)
	}
	return nil
}

// timestamp formats t as the plugin prints and writes times: RFC 3339 in UTC, in seconds.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
