package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// ErrTimeout refuses a negative --timeout.
var ErrTimeout = errors.New("--timeout must not be negative")

const statusExample = `  # Where a rollout is; exits 1 when it ended without succeeding or is stalled
  kubectl aicr status rollout-3f9a1c0d2b7e4a51-1

  # Follow it until it ends, for at most two hours, as a deployment pipeline would
  kubectl aicr status rollout-3f9a1c0d2b7e4a51-1 -w --timeout 2h`

func newStatusCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "status ROLLOUT [-w] [--timeout DURATION]",
		short: "Print where a rollout is; with -w, follow it until it ends",
		long: "Prints one line: the rollout's phase, the step in flight with its release's state, and the operator's\n" +
			"message. Exits 0 when the rollout succeeded, progresses or waits for an approval or an acknowledgement;\n" +
			"exits 1 when it ended Failed, Expired, Revoked, Superseded or Orphaned, or is Stalled for another reason.\n" +
			"With -w it prints a line each time that line changes and returns once the rollout succeeded (0), ended\n" +
			"otherwise, stalled or was deleted (1), or --timeout passed (1). --request-timeout bounds each read;\n" +
			"a watch the API server closes is opened again. Needs get and watch on runtimerollouts.",
		example:  statusExample,
		args:     cobra.ExactArgs(1),
		validate: validateTimeout,
		run:      runStatus,
	})
}

// validateTimeout refuses a negative --timeout.
func validateTimeout(o *Options) error {
	if o.flags.timeout < 0 {
		return fmt.Errorf("%w: %s", ErrTimeout, o.flags.timeout)
	}
	return nil
}

func runStatus(s *session, args []string) error {
	if s.o.flags.watch {
		return s.follow(args[0])
	}
	ro, err := s.rollout(args[0])
	if err != nil {
		return err
	}
	if printErr := s.o.say("%s", statusLine(ro)); printErr != nil {
		return printErr
	}
	_, err = judge(ro)
	return err
}
