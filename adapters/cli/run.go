package cli

import (
	"context"
	"fmt"
)

const rootExample = `  # What an approver decides on, then approve it for two hours
  kubectl aicr describe rollout-3f9a1c0d2b7e4a51-1
  kubectl aicr approve rollout-3f9a1c0d2b7e4a51-1 --expires 2h --reason "Maintenance window"

  # Follow a rollout until it ends; exits 1 if it fails or stalls
  kubectl aicr status rollout-3f9a1c0d2b7e4a51-1 -w --timeout 2h

  # Revoke, or acknowledge the recorded steps of the release a rollout waits on
  kubectl aicr revoke rollout-3f9a1c0d2b7e4a51-1 --reason "Training job not checkpointed"
  kubectl aicr acknowledge rollout-3f9a1c0d2b7e4a51-1 --context prod --as alice --as-group approvers

  # Hold new rollouts, then retry the failed one once the cause is fixed
  kubectl aicr pause
  kubectl aicr retry

  # Re-render the active plan's bundle with the AICR CLI and compare
  kubectl aicr reproduce --operator-namespace aicr-system --dir aicr-reproduce

  # The plan an AICR helm bundle produces (offline)
  kubectl aicr plan --bundle ./bundle-helm

  # Versions, and completion of commands, flags and rollout names (see kubectl_complete-aicr)
  kubectl aicr version
  source <(kubectl aicr completion bash)`

// Run executes the plugin with args (without the program name) and returns its exit code:
// 0 on success, 1 after printing "error: <message>" to the error stream.
func Run(ctx context.Context, o *Options, args []string) int {
	root := NewRootCommand(o)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		_, _ = fmt.Fprintln(o.ErrOut, "error:", err)
		return 1
	}
	return 0
}
