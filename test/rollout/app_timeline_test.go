package rollout_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appTimeline is the step path of a rollout on the Argo CD engine: when the operator wrote each
// Application and when the simulated Argo CD first reported each synced and healthy.
type appTimeline struct {
	mu      sync.Mutex
	written []appWrite
	healthy map[string]time.Time
}

// appWrite is one Application write of the operator.
type appWrite struct {
	name string
	at   time.Time
}

func newAppTimeline() *appTimeline {
	return &appTimeline{healthy: map[string]time.Time{}}
}

// wrote records the operator's write of the Application name at at.
func (l *appTimeline) wrote(name string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written = append(l.written, appWrite{name: name, at: at})
}

// reportedHealthy records that the simulator reported the Application name healthy at at,
// unless it did before.
func (l *appTimeline) reportedHealthy(name string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.healthy[name]; !ok {
		l.healthy[name] = at
	}
}

// steps requires one write of a distinct Application per step, each reported healthy, and
// returns, in step order: overhead, the time from the simulator reporting a step's Application
// healthy to the operator's write of the next step's; engine, the time from the operator's write
// of each step's Application to the simulator reporting it healthy; and cycle, the time between
// consecutive writes (engine plus overhead).
func (l *appTimeline) steps(tb testing.TB, n int) (overhead, engine, cycle []time.Duration) {
	tb.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Len(tb, l.written, n, "one Application write per step")
	require.Len(tb, l.healthy, n, "every Application reported healthy")
	for i, w := range l.written {
		healthy, ok := l.healthy[w.name]
		require.True(tb, ok, "application %s never reported healthy", w.name)
		engine = append(engine, healthy.Sub(w.at))
		if i+1 < len(l.written) {
			next := l.written[i+1].at
			overhead = append(overhead, next.Sub(healthy))
			cycle = append(cycle, next.Sub(w.at))
		}
	}
	return overhead, engine, cycle
}

// The timeline splits each step of the Argo CD path in two: the overhead runs from the
// simulator's report of one step's Application to the operator's write of the next, the engine
// from a write to its report, and the cycle from write to write is their sum.
func TestAppTimelineSteps(t *testing.T) {
	t.Parallel()
	l := newAppTimeline()
	l.wrote("a", epoch)
	l.reportedHealthy("a", epoch.Add(20*time.Millisecond))
	l.wrote("b", epoch.Add(23*time.Millisecond))
	l.reportedHealthy("b", epoch.Add(40*time.Millisecond))
	l.reportedHealthy("a", epoch.Add(41*time.Millisecond)) // a later report of a again: not the one the step waited for
	l.wrote("c", epoch.Add(45*time.Millisecond))
	l.reportedHealthy("c", epoch.Add(60*time.Millisecond))
	overhead, engine, cycle := l.steps(t, 3)
	assert.Equal(t, []time.Duration{3 * time.Millisecond, 5 * time.Millisecond}, overhead)
	assert.Equal(t, []time.Duration{20 * time.Millisecond, 17 * time.Millisecond, 15 * time.Millisecond}, engine)
	assert.Equal(t, []time.Duration{23 * time.Millisecond, 22 * time.Millisecond}, cycle)
}
