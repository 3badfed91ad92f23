package app

import (
	"context"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// MaxDecisions bounds the domain decisions one AdvanceRollout takes, so the status the caller
// persists trails the engine by at most MaxDecisions/2 steps.
const MaxDecisions = 32

// Decision is one domain decision with the status it started from: the caller records an
// Event and the metrics of each.
type Decision struct {
	From domain.RolloutStatus
	Out  domain.Outcome
}

// AdvanceRollout takes the rollout's domain decisions (domain.Rollout.Advance over the ports p
// in the environment env) until one waits, stalls, ends or mutates (a mutation asks for a
// requeue), at most MaxDecisions. On an engine whose reads show its writes at once
// (ports.ConsistentReads) a mutation does not end it: the next decision judges the step, and
// a step the engine already shows ready moves on to the next one without a status write and a
// requeue in between; a step not ready yet waits. Leaving Pending ends it too, so
// the caller persists that before the first step's mutation and a restart never re-checks the
// starting inventory after a step wrote to the engine (RO-12). It returns the last outcome, the
// decisions that carry an Event or a stall, and the transient error that stopped it, if any: a
// cancelled ctx stops it before the next decision.
func AdvanceRollout(ctx context.Context, r *domain.Rollout, p domain.Ports, env domain.Environment) (domain.Outcome, []Decision, error) {
	out := domain.Outcome{Status: r.Status()}
	var decisions []Decision
	consistent, ok := p.Engine.(ports.ConsistentReads)
	judgeAtOnce := ok && consistent.ReadsItsWrites()
	for range MaxDecisions {
		if err := ctx.Err(); err != nil {
			return out, decisions, err // a cancelled reconcile takes no further decision
		}
		from := r.Status()
		next, err := r.Advance(ctx, p, env)
		if err != nil {
			return out, decisions, err
		}
		out = next
		if next.Event != "" || next.Stall != nil {
			decisions = append(decisions, Decision{From: from, Out: next})
		}
		if next.Mutated && next.Stall == nil && judgeAtOnce {
			continue
		}
		if next.RequeueAfter > 0 || next.Stall != nil || next.Phase().Terminal() || next.Event == "" || next.Status == from ||
			from.Phase == domain.PhasePending {
			break
		}
	}
	return out, decisions, nil
}
