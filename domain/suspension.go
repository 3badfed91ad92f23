package domain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// Reconciling reasons of the runtime while the engine suspension switch is being applied. They
// are never Ready reasons: Ready is EngineSuspended only once the engine objects show it (CR-8).
const (
	// ReasonEngineSuspending surfaces on Reconciling while automated sync of some engine
	// objects of the runtime is still on although spec.suspendEngine is set.
	ReasonEngineSuspending = "EngineSuspending"
	// ReasonEngineResuming surfaces on Reconciling while automated sync of some engine objects
	// of the runtime is still off although spec.suspendEngine is not set.
	ReasonEngineResuming = "EngineResuming"
)

// SuspensionInput is what the runtime's engine suspension is decided from: the switch, the
// runtime, the rollout in progress and the engine objects as the engine reports them.
type SuspensionInput struct {
	// Suspend is spec.suspendEngine.
	Suspend bool
	// RuntimeUID is the runtime's UID: only engine objects recording it are written (ENG-2).
	RuntimeUID string
	// Rollout and RolloutPlan name the rollout in progress and its target plan ("": none).
	Rollout, RolloutPlan string
	// Live are the engine objects (DeploymentEngine.List).
	Live []ports.ReleaseStatus
}

// Suspension is the decision on the runtime's engine objects for spec.suspendEngine: which of
// them to write through DeploymentEngine.Suspend, and which wait for their step in flight.
type Suspension struct {
	// Suspend is the automation state wanted: true suspends, false resumes.
	Suspend bool
	// Writes are the engine objects of the runtime whose automation differs from the wanted
	// state, in the engine's order: Suspend(ref, Suspend) each.
	Writes []ports.ReleaseRef
	// Deferred are the engine objects a step of the rollout in progress wrote whose sync has
	// not applied yet: they are suspended once it has, so the step in flight finishes (as with
	// spec.paused) instead of timing out behind a suspended sync.
	Deferred []ports.ReleaseRef
	// Objects counts the engine objects of the runtime the switch applies to.
	Objects int
}

// Holds reports that the engine objects show the wanted automation on every engine object of
// the runtime: with Suspend, only then is the runtime's Ready reason EngineSuspended (CR-8).
func (s Suspension) Holds() bool { return len(s.Writes) == 0 && len(s.Deferred) == 0 }

// DecideSuspension decides, from the switch and the live engine objects alone, what makes
// automated sync off on every engine object of the runtime while spec.suspendEngine is set and
// on again once it is lifted. Objects of another runtime (one spec.adoption names included) and
// objects being removed are never written. Argo CD's self-heal cannot undo maintenance work on
// a suspended release; an object a step of the rollout in progress wrote is suspended only once
// the engine applied its sync, so that step finishes and no further step starts.
func DecideSuspension(in SuspensionInput) Suspension {
	out := Suspension{Suspend: in.Suspend}
	for _, st := range in.Live {
		if st.Owner.RuntimeUID != in.RuntimeUID || in.RuntimeUID == "" || st.Removing {
			continue
		}
		out.Objects++
		switch {
		case st.Suspended == in.Suspend:
		case in.Suspend && stepInFlight(in, st):
			out.Deferred = append(out.Deferred, st.Ref)
		default:
			out.Writes = append(out.Writes, st.Ref)
		}
	}
	return out
}

// stepInFlight reports whether st records the rollout in progress and its target plan without
// the engine having applied that spec yet: its step is in flight.
func stepInFlight(in SuspensionInput, st ports.ReleaseStatus) bool {
	return in.Rollout != "" && st.Owner.Rollout == in.Rollout && st.Owner.PlanDigest == in.RolloutPlan && !st.Synced()
}

// Message says where the suspension stands, for the runtime's Ready (once it holds) or
// Reconciling (while it does not) condition.
func (s Suspension) Message() string {
	switch {
	case s.Holds() && s.Suspend && s.Objects == 0:
		return "automated sync is suspended: the runtime has no engine object (spec.suspendEngine)"
	case s.Holds() && s.Suspend:
		return fmt.Sprintf("automated sync is off on all %d engine objects of the runtime (spec.suspendEngine)", s.Objects)
	case !s.Suspend:
		return fmt.Sprintf("turning automated sync back on for %s", refList(s.Writes))
	case len(s.Writes) == 0:
		return fmt.Sprintf("suspending automated sync: %s wait for the sync of their step in flight", refList(s.Deferred))
	}
	msg := fmt.Sprintf("suspending automated sync of %s", refList(s.Writes))
	if len(s.Deferred) > 0 {
		msg += fmt.Sprintf("; %s wait for the sync of their step in flight", refList(s.Deferred))
	}
	return msg
}

// SuspensionReason is the Reconciling reason while the suspension does not hold.
func (s Suspension) SuspensionReason() string {
	if s.Suspend {
		return ReasonEngineSuspending
	}
	return ReasonEngineResuming
}

// SuspensionRefused maps the error of DeploymentEngine.Suspend(ref, ..., suspend) to the
// runtime's stall: the engine refused (ErrSuspensionRefused, a sync operation runs) or the
// object is not the runtime's (ErrForeignObject, changed since it was listed) is
// EngineSuspensionRefused with the engine's message; an object gone meanwhile (ErrTargetNotFound)
// is no stall; an engine that is missing or denies the operator stalls as it does elsewhere; any
// other error is transient and returned wrapped.
func SuspensionRefused(ref ports.ReleaseRef, suspend bool, err error) (*Stall, error) {
	what := "suspend " + ref.String()
	if !suspend {
		what = "resume " + ref.String()
	}
	switch {
	case err == nil || errors.Is(err, ports.ErrTargetNotFound):
		return nil, nil
	case errors.Is(err, ports.ErrSuspensionRefused), errors.Is(err, ports.ErrForeignObject):
		return stallf(StallEngineSuspensionRefused, fmt.Sprintf("%s: %v", what, err)), nil
	}
	return portStall(what, err)
}

func refList(refs []ports.ReleaseRef) string {
	const shown = 5
	names := make([]string, 0, min(len(refs), shown))
	for i, r := range refs {
		if i == shown {
			break
		}
		names = append(names, r.String())
	}
	out := strings.Join(names, ", ")
	if len(refs) > shown {
		out += fmt.Sprintf(" and %d more", len(refs)-shown)
	}
	return out
}
