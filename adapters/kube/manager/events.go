package manager

import (
	"context"

	"k8s.io/client-go/tools/record"
)

// Event limits per involved object. client-go's defaults (a burst of 25 Events, then one
// every 5 minutes; similar Events combined after 10) drop most of a long rollout's step
// Events and its RolloutEnded; these let a rollout of the most steps the API admits (256,
// RO-5) record each of its Events (OPS-1) and still bound a runaway loop.
const (
	eventBurst          = 1024
	eventRefillPerSec   = 1
	eventsBeforeCombine = 1024
)

// NewEventBroadcaster returns the broadcaster of the manager's event recorders with the
// limits above; suites that build their own manager use it to send the operator's Events as
// the operator does.
func NewEventBroadcaster() record.EventBroadcaster {
	return record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{
		BurstSize: eventBurst,
		QPS:       eventRefillPerSec,
		MaxEvents: eventsBeforeCombine,
	})
}

// broadcasterShutdown stops a broadcaster the manager was given (the manager stops only the
// ones it made) when the manager stops, leader or not.
type broadcasterShutdown struct{ broadcaster record.EventBroadcaster }

// Start blocks until ctx ends, then shuts the broadcaster down.
func (s broadcasterShutdown) Start(ctx context.Context) error {
	<-ctx.Done()
	s.broadcaster.Shutdown()
	return nil
}

// NeedLeaderElection is false: a standby's recorders are stopped too.
func (broadcasterShutdown) NeedLeaderElection() bool { return false }
