package cli

import "errors"

// Refusals of the API commands (CLI-3..6). Each is wrapped with the rollout or plan it is about.
var (
	// ErrEnded refuses a rollout that carries an outcome label.
	ErrEnded = errors.New("has ended")
	// ErrAlreadyApproved refuses a second approval: an approval can be neither changed nor extended.
	ErrAlreadyApproved = errors.New("is already approved")
	// ErrNoApprovalNeeded refuses to approve a rollout whose spec.approvalRequired is false.
	ErrNoApprovalNeeded = errors.New("needs no approval")
	// ErrDeadlinePassed refuses an approval lasting until a deadline that has passed.
	ErrDeadlinePassed = errors.New("deadline has passed")
	// ErrPastDeadline refuses an approval that would outlive its rollout's deadline (RO-4).
	ErrPastDeadline = errors.New("after the rollout's deadline")
	// ErrNotApproved refuses to revoke a rollout that has no approval.
	ErrNotApproved = errors.New("is not approved")
	// ErrAlreadyRevoked refuses a second revocation.
	ErrAlreadyRevoked = errors.New("is already revoked")
	// ErrNotAwaitingAcknowledgement refuses to acknowledge a rollout that is not waiting.
	ErrNotAwaitingAcknowledgement = errors.New("is not waiting for an acknowledgement")
	// ErrAlreadyAcknowledged refuses a second acknowledgement of a release.
	ErrAlreadyAcknowledged = errors.New("is already acknowledged")
	// ErrNoStepInFlight refuses an override without --release of a rollout with no step in flight.
	ErrNoStepInFlight = errors.New("has no step in flight")
	// ErrNotDisruptive refuses an override of a release that is not a disruptive step of the rollout.
	ErrNotDisruptive = errors.New("is not a disruptive step of the rollout")
	// ErrAlreadyOverridden refuses a second override of a release.
	ErrAlreadyOverridden = errors.New("is already overridden")
	// ErrRuntimeDeleting refuses a change of a ClusterRuntime that is being deleted.
	ErrRuntimeDeleting = errors.New("is being deleted")
	// ErrNothingToRetry refuses a retry when the last rollout did not fail, expire or get revoked.
	ErrNothingToRetry = errors.New("has nothing to retry")
	// ErrAlreadyRequested refuses a request whose value is already set.
	ErrAlreadyRequested = errors.New("was already requested")
	// ErrAlreadyPaused refuses pause of a paused runtime.
	ErrAlreadyPaused = errors.New("is already paused")
	// ErrNotPaused refuses resume of a runtime that is not paused.
	ErrNotPaused = errors.New("is not paused")
	// ErrAlreadySuspended refuses suspend of a runtime whose engine is suspended.
	ErrAlreadySuspended = errors.New("already has its engine suspended")
	// ErrNotSuspended refuses unsuspend of a runtime whose engine is not suspended.
	ErrNotSuspended = errors.New("does not have its engine suspended")
	// ErrReasonRequired refuses approve, revoke and override without --reason.
	ErrReasonRequired = errors.New("--reason is required")
	// ErrReasonTooLong refuses a --reason longer than MaxReasonLength.
	ErrReasonTooLong = errors.New("--reason is longer than 1024 characters")
	// ErrExpiresNotPositive refuses an --expires shorter than a second, zero and negative
	// included: the approval would end before the API server stored it.
	ErrExpiresNotPositive = errors.New("--expires must be at least one second")
	// ErrNoClock is returned when the plugin was built without a clock.
	ErrNoClock = errors.New("no clock configured")
	// ErrNoPlan refuses reproduce when the runtime has neither an active nor a candidate plan.
	ErrNoPlan = errors.New("no active or candidate plan")
	// ErrPlanArgument refuses a PLAN that is neither sha256:<digest> nor aicr-plan-<16 hex>.
	ErrPlanArgument = errors.New(`PLAN must be "sha256:<64 hex>" or a plan ConfigMap name aicr-plan-<16 hex>`)
	// ErrNotAPlan refuses a ConfigMap that is not a readable plan.
	ErrNotAPlan = errors.New("is not a readable plan")
	// ErrRebuiltPlan refuses a plan rebuilt from Applications: it has no recipe.
	ErrRebuiltPlan = errors.New("was rebuilt from the engine's Applications and has no recipe")
	// ErrNoRenderFlags refuses a plan that does not record its render flags.
	ErrNoRenderFlags = errors.New("does not record its render flags")
	// ErrRecipeDigest refuses a recipe whose content does not match its recorded digest.
	ErrRecipeDigest = errors.New("content does not match its recorded digest")
	// ErrApplicationsDiffer ends reproduce non-zero when an Application of the active plan is
	// not what the plan renders for its release (edited, missing or another runtime's).
	ErrApplicationsDiffer = errors.New("differ from what the plan renders")
)

// errNoBundleReader reports Options without a bundle reader (cmd/kubectl-aicr always sets one).
var errNoBundleReader = errors.New("kubectl aicr plan: no bundle reader configured")
