package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// completeRollouts is the ValidArgsFunction of the commands taking a ROLLOUT: it lists the
// RuntimeRollouts whose names start with what was typed, under the command's deadline.
// kubectl runs it through the kubectl_complete-aicr shim (cmd/kubectl-aicr).
func completeRollouts(o *Options) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names, err := o.rolloutNames(cmd, toComplete)
		if err != nil {
			cobra.CompErrorln(err.Error())
			return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// rolloutNames lists the names of the RuntimeRollouts starting with prefix, sorted.
func (o *Options) rolloutNames(cmd *cobra.Command, prefix string) ([]string, error) {
	s, cancel, err := o.connect(cmd.Context())
	if err != nil {
		return nil, err
	}
	defer cancel()
	list, err := s.dyn.Resource(rolloutGVR).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, s.check("list rollouts", err)
	}
	var names []string
	for _, item := range list.Items {
		if strings.HasPrefix(item.GetName(), prefix) {
			names = append(names, item.GetName())
		}
	}
	sort.Strings(names)
	return names, nil
}
