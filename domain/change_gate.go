package domain

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

const (
	// workloadPoll is how often a step held by protected workloads looks at them again: Pods
	// finishing are not watched.
	workloadPoll = 30 * time.Second
	// maxNamedWorkloads bounds the workloads a message names.
	maxNamedWorkloads = 5
)

// disruptionGate holds a disruptive step before its mutation while the change policy does not
// let it start: outside an open change window or inside a freeze, or while a protected
// workload runs on the accelerated nodes. An approver's override of the step lets it go. It
// judges only a step not started: a window that closes while a step runs lets it finish.
func (r *Rollout) disruptionGate(ctx context.Context, p Ports, env Environment, s Step, now time.Time) (
	Outcome, bool, error) {
	if s.Disruption == "" {
		return Outcome{}, false, nil
	}
	if _, ok := r.spec.Approval.Override(s.Release.ID); ok {
		return Outcome{}, false, nil
	}
	step := StepMessage(r.spec.Name, r.status.Step, len(r.spec.Steps), s)
	window, err := env.ChangePolicy.At(now)
	if err != nil {
		return r.stalled(stallf(StallChangePolicyInvalid, fmt.Sprintf(
			"%s cannot start: the runtime's change policy cannot be judged: %v", step, err))), true, nil
	}
	if !window.Open {
		out := r.stalled(stallf(StallOutsideChangeWindow, fmt.Sprintf(
			"%s waits %s: %s; it may disrupt the accelerated nodes: %s", step, until(window), window.Why, s.Disruption)))
		if !window.Opens.IsZero() {
			out.RequeueAfter = window.Opens.Sub(now)
		}
		return r.untilApprovalEnds(out, now), true, nil
	}
	running, err := r.protectedRunning(ctx, p, env)
	if err != nil {
		out, serr := r.stallOrError("list protected workloads", err)
		return out, true, serr
	}
	if len(running) > 0 {
		out := r.stalled(stallf(StallProtectedWorkloadsRunning, fmt.Sprintf(
			"%s waits for protected workloads on the accelerated nodes: %s; it may disrupt them: %s",
			step, namedWorkloads(running), s.Disruption)))
		out.RequeueAfter = workloadPoll
		return r.untilApprovalEnds(out, now), true, nil
	}
	return Outcome{}, false, nil
}

// protectedRunning lists the protected workloads on the accelerated nodes (none when the
// policy protects none).
func (r *Rollout) protectedRunning(ctx context.Context, p Ports, env Environment) ([]ports.Workload, error) {
	cp := env.ChangePolicy
	if cp.ProtectedPods == "" || p.Workloads == nil {
		return nil, nil
	}
	return p.Workloads.Running(ctx, ports.WorkloadQuery{
		PodSelector: cp.ProtectedPods, Namespaces: cp.ProtectedNamespaces, NodeSelector: env.AcceleratedNodes,
	})
}

// untilApprovalEnds looks at a held rollout again no later than when its approval expires,
// to end it then (RO-8).
func (r *Rollout) untilApprovalEnds(out Outcome, now time.Time) Outcome {
	exp := r.spec.Approval.ExpiresAt
	if r.spec.ApprovalRequired && !exp.IsZero() && (out.RequeueAfter == 0 || exp.Sub(now) < out.RequeueAfter) {
		out.RequeueAfter = exp.Sub(now)
	}
	return out
}

func until(w WindowState) string {
	if w.Opens.IsZero() {
		return "with no change window open within a year"
	}
	return "until " + w.Opens.UTC().Format(time.RFC3339)
}

func namedWorkloads(ws []ports.Workload) string {
	names := make([]string, 0, maxNamedWorkloads)
	for i, w := range ws {
		if i == maxNamedWorkloads {
			break
		}
		names = append(names, w.String())
	}
	out := strings.Join(names, ", ")
	if more := len(ws) - maxNamedWorkloads; more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// windowAfterDeadline says, for a rollout that needs an approval, when no change window opens
// before its deadline while it has a disruptive step: the approval ends at the deadline at the
// latest, so that step could never start ("" otherwise, and when the policy cannot be judged,
// which the step itself reports).
func (r *Rollout) windowAfterDeadline(env Environment, now time.Time) string {
	if !r.spec.ApprovalRequired || r.spec.Deadline.IsZero() {
		return ""
	}
	first := ""
	for _, s := range r.spec.Steps {
		if s.Disruption != "" {
			first = s.Release.ID
			break
		}
	}
	if first == "" {
		return ""
	}
	w, err := env.ChangePolicy.At(now)
	if err != nil || w.Open || (!w.Opens.IsZero() && w.Opens.Before(r.spec.Deadline)) {
		return ""
	}
	return fmt.Sprintf("its deadline %s falls before the next change window (%s): its disruptive step %s cannot start "+
		"before the deadline unless an approver overrides it", r.spec.Deadline.UTC().Format(time.RFC3339), opensOrNever(w), first)
}

func opensOrNever(w WindowState) string {
	if w.Opens.IsZero() {
		return "none opens within a year"
	}
	return "it opens at " + w.Opens.UTC().Format(time.RFC3339)
}
