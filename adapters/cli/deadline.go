package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// ErrRequestTimeout refuses a negative --request-timeout.
var ErrRequestTimeout = errors.New("--request-timeout must not be negative")

// preflight checks what every API command shares: the deadline, and -n given where
// --operator-namespace was probably meant (a warning: -n keeps its kubectl meaning).
func (o *Options) preflight(cmd *cobra.Command) error {
	if o.Timeout < 0 {
		return fmt.Errorf("%w: %s", ErrRequestTimeout, o.Timeout)
	}
	if cmd.Flags().Changed("namespace") && !cmd.Flags().Changed("operator-namespace") {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: -n/--namespace is the kubectl namespace and does not select the "+
			"operator namespace; using --operator-namespace %s\n", o.namespace())
	}
	return nil
}

// withDeadline starts the command's deadline: --request-timeout, or none when it is 0 (as
// kubectl's "0 means no timeout").
func (o *Options) withDeadline(parent context.Context) (context.Context, context.CancelFunc) {
	if o.Timeout == 0 {
		return context.WithCancel(parent)
	}
	return context.WithTimeout(parent, o.Timeout)
}
