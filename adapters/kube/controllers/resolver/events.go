package resolver

import (
	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/app"
)

// ReasonResolving is the Resolved reason while a resolution is in progress
// (also while retrying after a transient failure). Every other False reason
// is a stall reason of the domain (CR-10).
const ReasonResolving = "Resolving"

// ReasonResolved is the Resolved reason when the current spec resolved to the
// candidate plan named in the message.
const ReasonResolved = "Resolved"

// Event reasons of the resolver. A stall is recorded with the
// domain's stall reason verbatim.
const (
	// EventResolveStageStarted is recorded when an AICR Job of a stage is created.
	EventResolveStageStarted = app.EventStageStarted
	// EventResolveStageSucceeded is recorded when a stage's result is recorded.
	EventResolveStageSucceeded = app.EventStageSucceeded
	// EventResolveStageFailed is recorded with a stall that stops the resolution.
	EventResolveStageFailed = "ResolveStageFailed"
	// EventKeptResultIgnored is recorded when what stands at a kept result's name is not the
	// runner's sealed copy, so its Job runs again.
	EventKeptResultIgnored = app.EventKeptResultIgnored
)

func (r *Reconciler) event(cr *aicrv1alpha1.ClusterRuntime, typ, reason, format string, args ...any) {
	r.Recorder.Eventf(cr, typ, reason, format, args...)
}
