package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// runtimeSwitch is a command that turns a boolean of the ClusterRuntime's spec on or off.
type runtimeSwitch struct {
	use, short, long string
	// field is the spec field; on is the value the command sets.
	field string
	on    bool
	// get reads the field from a runtime.
	get func(*aicrv1alpha1.ClusterRuntime) bool
	// already is the refusal of a runtime where the field already has the value; done is what
	// the command says after the write.
	already error
	done    string
}

func paused(cr *aicrv1alpha1.ClusterRuntime) bool          { return cr.Spec.Paused }
func engineSuspended(cr *aicrv1alpha1.ClusterRuntime) bool { return cr.Spec.SuspendEngine }

// runtimeSwitches are pause, resume, suspend and unsuspend.
var runtimeSwitches = []runtimeSwitch{
	{use: "pause", short: "Pause rollouts (spec.paused: true)", field: "paused", on: true, get: paused, already: ErrAlreadyPaused,
		long: "No new rollout, rollout step or deployment validation run starts; a step in flight finishes. Argo CD\n" +
			"keeps syncing and self-healing the Applications, and resolution goes on.",
		done: "paused: no rollout, step or validation run starts until `kubectl aicr resume`"},
	{use: "resume", short: "Resume rollouts (spec.paused: false)", field: "paused", on: false, get: paused, already: ErrNotPaused,
		long: "Rollouts, steps and validation runs start again where they stopped.",
		done: "resumed"},
	{use: "suspend", short: "Suspend the engine's automated sync (spec.suspendEngine: true)", field: "suspendEngine", on: true,
		get: engineSuspended, already: ErrAlreadySuspended,
		long: "The operator turns automated sync off on every Argo CD Application of the runtime, for maintenance by\n" +
			"hand: Argo CD's self-heal cannot undo what you change while it holds. No rollout is created and no\n" +
			"step or validation run starts; the step in flight finishes first.",
		done: "engine suspended: the operator turns automated sync off on every Application; `kubectl aicr unsuspend` turns it on"},
	{use: "unsuspend", short: "Turn the engine's automated sync back on (spec.suspendEngine: false)", field: "suspendEngine",
		on: false, get: engineSuspended, already: ErrNotSuspended,
		long: "The operator turns automated sync back on, Argo CD syncs what changed by hand back to the plan, and\n" +
			"rollouts go on.",
		done: "engine unsuspended: automated sync is turned back on"},
}

// switchCommands are the constructors of the runtimeSwitches' commands.
func switchCommands() []func(*Options) *cobra.Command {
	out := make([]func(*Options) *cobra.Command, 0, len(runtimeSwitches))
	for _, sw := range runtimeSwitches {
		out = append(out, func(o *Options) *cobra.Command { return newSwitchCommand(o, sw) })
	}
	return out
}

func newSwitchCommand(o *Options, sw runtimeSwitch) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:     sw.use,
		short:   sw.short,
		long:    sw.long + "\n" + decidedAgainRuntime,
		example: "  kubectl aicr " + sw.use,
		args:    cobra.NoArgs,
		run: func(s *session, _ []string) error {
			err := s.changeRuntime(sw.use, func(cr *aicrv1alpha1.ClusterRuntime) (map[string]any, error) {
				if sw.get(cr) == sw.on {
					return nil, fmt.Errorf("clusterruntime %s %w (spec.%s is %t)", cr.Name, sw.already, sw.field, sw.on)
				}
				return map[string]any{"spec": map[string]any{sw.field: sw.on}}, nil
			})
			if err != nil {
				return err
			}
			return s.o.say("clusterruntime %s %s", aicrv1alpha1.ClusterRuntimeName, sw.done)
		},
	})
}
