package cli

import "github.com/spf13/cobra"

// subcommands lists the constructors of every kubectl aicr command; adding a
// command means adding its constructor here.
var subcommands = append([]func(*Options) *cobra.Command{
	newPlanCommand,
	newDescribeCommand,
	newStatusCommand,
	newApproveCommand,
	newRevokeCommand,
	newAcknowledgeCommand,
	newOverrideCommand,
	newReproduceCommand,
	newRetryCommand,
	newResolveCommand,
}, append(switchCommands(), newVersionCommand)...)

// NewRootCommand returns the `kubectl aicr` root command with every subcommand, cobra's help
// command and cobra's completion command. Errors are printed once by the caller.
func NewRootCommand(o *Options) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-aicr",
		Short: "Inspect, approve and steer AICR operator plans and rollouts",
		Long: "kubectl aicr inspects the plans the AICR operator rolls out and lets approvers act on rollouts\n" +
			"and platform engineers pause, suspend, retry or re-resolve the cluster runtime.\n" +
			"It talks to the API server only, never to the operator; `plan` works offline on bundle directories.",
		Example:       rootExample,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl aicr",
		},
	}
	root.SetIn(o.In)
	root.SetOut(o.Out)
	root.SetErr(o.ErrOut)
	o.addFlags(root.PersistentFlags())
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd(o))
	}
	// Add cobra's completion command now rather than at Execute, so that it is listed with
	// the others (docs tests, help).
	root.InitDefaultCompletionCmd()
	return root
}
