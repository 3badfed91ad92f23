package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// Rollout bounds (RO-5).
const (
	// MaxSteps is the largest number of steps a rollout may hold.
	MaxSteps = 256
	// DefaultActionTimeout bounds how long one step may take to become ready (the chart's
	// rollout.stepTimeout, the operator's --step-timeout).
	DefaultActionTimeout = 15 * time.Minute
	// DefaultRolloutWindow is how long a new rollout has before its deadline (the chart's
	// rollout.window, the operator's --rollout-window).
	DefaultRolloutWindow = 24 * time.Hour
)

// ErrInvalidRollout reports a rollout spec that breaks an invariant.
var ErrInvalidRollout = errors.New("invalid rollout")

// Acknowledgement records that an approver did the steps recorded for a release's transition (RO-9).
type Acknowledgement struct {
	Release        string
	AcknowledgedBy string
	AcknowledgedAt time.Time
}

// DisruptionOverride records that an approver let a disruptive step go outside a change window
// or while protected workloads run (DisruptionOverride in the API).
type DisruptionOverride struct {
	Release      string
	OverriddenBy string
	OverriddenAt time.Time
	Reason       string
}

// Approval is the set-once approval of a rollout (RO-4).
type Approval struct {
	ApprovedBy       string
	ExpiresAt        time.Time
	Reason           string
	RevokedBy        string
	RevokedAt        time.Time
	RevokeReason     string
	Acknowledgements []Acknowledgement
	// Overrides let disruptive steps go, one per release.
	Overrides []DisruptionOverride
}

// Approved reports whether an approval was given (whether or not still valid).
func (a Approval) Approved() bool { return a.ApprovedBy != "" }

// Revoked reports whether the approval was revoked.
func (a Approval) Revoked() bool { return a.RevokedBy != "" }

// Acknowledged reports whether release has an acknowledgement.
func (a Approval) Acknowledged(release string) bool {
	for _, ack := range a.Acknowledgements {
		if ack.Release == release {
			return true
		}
	}
	return false
}

// Override returns the override of release's step, if an approver gave one.
func (a Approval) Override(release string) (DisruptionOverride, bool) {
	for _, o := range a.Overrides {
		if o.Release == release {
			return o, true
		}
	}
	return DisruptionOverride{}, false
}

// RolloutSpec is the immutable part of a rollout (RO-2) plus its approval.
type RolloutSpec struct {
	Name                    string
	RuntimeUID              string
	FromPlanDigest          string
	ToPlanDigest            string
	StartingInventoryDigest string
	CreatedAt               time.Time
	Deadline                time.Time
	ApprovalRequired        bool
	Steps                   []Step
	Approval                Approval
}

// RolloutStatus is the observed progress of a rollout; it can be rebuilt
// from the outcome label and the engine objects (RO-13).
type RolloutStatus struct {
	Phase Phase
	// Step is the index of the step in flight (len(Steps) once all finished).
	Step int
	// StepStartedAt is when the step in flight made its mutation (zero: not yet).
	StepStartedAt time.Time
	// StepWrites is how many times the step in flight wrote its engine object (its first write
	// and each rewrite after something changed it; StepRewriteBound bounds them).
	StepWrites int
	// ValidationRun names the validation job.
	ValidationRun string
	// ValidationStartedAt is when the validation run in flight started, by the Clock (zero: no
	// run started, or its start was not recorded).
	ValidationStartedAt time.Time
	// Message explains the phase (for outcomes: why it ended).
	Message string
}

// Rollout is one RuntimeRollout: a spec plus the status it has reached.
type Rollout struct {
	spec   RolloutSpec
	status RolloutStatus
}

// RolloutFromStatus rehydrates a rollout from persisted spec and status (for
// a restored rollout without status pass the phase derived from its outcome
// label, or Pending). It validates the spec's invariants.
func RolloutFromStatus(spec RolloutSpec, status RolloutStatus) (*Rollout, error) {
	switch {
	case spec.Name == "" || spec.RuntimeUID == "" || spec.ToPlanDigest == "":
		return nil, fmt.Errorf("name, runtime UID and target plan are required: %w", ErrInvalidRollout)
	case len(spec.Steps) > MaxSteps:
		return nil, fmt.Errorf("%d steps, at most %d: %w", len(spec.Steps), MaxSteps, ErrInvalidRollout)
	case status.Step < 0 || status.Step > len(spec.Steps):
		return nil, fmt.Errorf("step index %d out of range: %w", status.Step, ErrInvalidRollout)
	}
	if status.Phase == "" {
		status.Phase = PhasePending
	}
	return &Rollout{spec: spec, status: status}, nil
}

// Status returns the rollout's status.
func (r *Rollout) Status() RolloutStatus { return r.status }

// Ports bundles the driven ports the domain needs; app/ builds it.
type Ports struct {
	Engine   ports.DeploymentEngine
	Jobs     ports.JobRunner
	Registry ports.Registry
	Clock    ports.Clock
	// Workloads finds protected workloads (nil: the change policy protects none).
	Workloads ports.WorkloadFinder
	// Sealer seals the state the operator trusts when it reads it back (a rollout's outcome,
	// SealedOutcome); the controllers seal and verify, the domain says what is sealed.
	Sealer ports.Sealer
}

// Environment is what the caller observed outside the rollout for this
// decision: the runtime, its plans and the installation's configuration.
type Environment struct {
	// RuntimeUID is the UID of the ClusterRuntime now ("" when it is gone).
	RuntimeUID string
	// TargetPlanDigest is the runtime's current target plan.
	TargetPlanDigest string
	// Target is the plan named by the rollout's toPlanDigest.
	Target *Plan
	// Active is the plan named by fromPlanDigest (nil for an initial install).
	Active *Plan
	// AdoptionRuntimeUID is spec.adoption.runtimeUID ("" when not adopting).
	AdoptionRuntimeUID string
	// ValidationRequired is spec.validation.deployment == Required.
	ValidationRequired bool
	// ValidationEnabled is the chart's validation.enabled.
	ValidationEnabled bool
	// ValidationImage is the pinned AICR image `aicr validate` and its snapshot agent run.
	ValidationImage string
	// ValidationNamespace is where AICR runs the deployment checks (validate --namespace).
	ValidationNamespace string
	// ValidationPlacement is where `aicr validate` itself runs: the runtime's system node
	// group (nil: anywhere).
	ValidationPlacement *ports.JobPlacement
	// ValidationRecipe is the target plan's validation recipe (PLAN-2), read while validation
	// is Required or running; nil when the plan has none.
	ValidationRecipe []byte
	// BundleDigest is the manifest digest of the target plan's rendered bundle ("" unknown).
	BundleDigest ports.Digest
	// SuspendEngine is spec.suspendEngine: the runtime controller turns automated sync of the
	// engine objects off (DecideSuspension), and, as with Paused, no step and no validation run
	// starts while a step in flight is still judged; a rollout never writes the suspension itself.
	SuspendEngine bool
	// Paused is spec.paused: no step and no validation run starts, a step in flight is still
	// judged, and a rollout still ends when its approval ends or its target moves.
	Paused bool
	// Deleting reports that the ClusterRuntime is being deleted: the rollout ends Orphaned at
	// its next decision, after its step in flight finished (CR-12).
	Deleting bool
	// ActionTimeout bounds one step (DefaultActionTimeout when zero).
	ActionTimeout time.Duration
	// ValidationTimeout bounds one deployment validation run (DefaultValidationTimeout when zero).
	ValidationTimeout time.Duration
	// ComponentTimeouts bounds the steps of the named components instead of ActionTimeout
	// (a GPU driver upgrade across a large fleet takes longer than other steps).
	ComponentTimeouts map[string]time.Duration
	// ChangePolicy is spec.changePolicy: a disruptive step starts only in an open window,
	// outside every freeze, while no protected workload runs on the accelerated nodes.
	ChangePolicy ChangePolicy
	// AcceleratedNodes is the accelerated node group's nodeSelector: the nodes a disruptive
	// step can disrupt.
	AcceleratedNodes map[string]string
}

// StepTimeout is how long step s may take to become ready: its component's timeout when one
// is set, else ActionTimeout, else DefaultActionTimeout.
func (e Environment) StepTimeout(s Step) time.Duration {
	if d := e.ComponentTimeouts[s.Component]; d > 0 {
		return d
	}
	if e.ActionTimeout > 0 {
		return e.ActionTimeout
	}
	return DefaultActionTimeout
}

// holds reports whether no step and no validation run may start now: spec.paused or
// spec.suspendEngine.
func (e Environment) holds() bool { return e.Paused || e.SuspendEngine }

// Outcome is the result of one Advance: the new status to persist and, when
// progress stopped, why. Waiting is expressed by RequeueAfter.
type Outcome struct {
	Status RolloutStatus
	// Stall is set when the rollout cannot progress without an outside change.
	Stall *Stall
	// RequeueAfter asks the caller to advance again after this long (0: on the next event).
	RequeueAfter time.Duration
	// Event describes the decision taken ("" when nothing changed).
	Event string
	// EventReason names the decision's Event (set with Event); EventWarning makes it a Warning.
	EventReason  EventReason
	EventWarning bool
	// Mutated reports that this Advance made the step's mutation through the engine: on an
	// engine whose reads show its writes at once, the next Advance may judge the step at once.
	Mutated bool
	// EvidenceDigest is the registry digest of validation evidence (Succeeded after validation).
	EvidenceDigest ports.Digest
	// Ended reports that this Advance decided the rollout's end: Status.Phase is an outcome
	// the domain reached in this call from the spec, the environment and the ports. It is
	// false when the rollout was handed to Advance already terminal (RolloutFromStatus with
	// an outcome phase): that Status is only what the caller read, repeated, so the caller
	// must not set the outcome label (RO-6) or the evidence annotation from it.
	Ended bool
}

// Phase returns the outcome's phase.
func (o Outcome) Phase() Phase { return o.Status.Phase }
