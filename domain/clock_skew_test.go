package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// skews are how far another machine's clock is off the operator's: behind, ahead, none; each
// within ClockSkewTolerance.
var skews = []time.Duration{-90 * time.Second, 90 * time.Second, 0}

// TestJobBoundsTolerateSkewedClocks: a Job's pod that began waiting, or a Job whose deletion
// was requested, at happened (operator clock) is stamped by a kubelet or API server whose clock
// is off by skew. A wait 30 seconds short of its bound is never past it, however the clocks
// are off; one past its bound by the tolerance and the skew always is.
func TestJobBoundsTolerateSkewedClocks(t *testing.T) {
	t.Parallel()
	happened := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, skew := range skews {
		stamped := happened.Add(skew)
		w := &ports.JobWaiting{Reason: "Unschedulable", Since: stamped}
		fresh := happened.Add(domain.JobPodWaitBound - 30*time.Second)
		assert.Nil(t, domain.JobWaitStall("aicr recipe job r", w, fresh), "pod clock off by %s: a fresh wait", skew)
		assert.Nil(t, domain.JobDeletionStall("aicr recipe job r", stamped, happened.Add(domain.JobDeletionBound-30*time.Second)),
			"API server clock off by %s: a fresh deletion", skew)
		stale := happened.Add(domain.JobPodWaitBound + domain.ClockSkewTolerance + skew.Abs())
		assert.NotNil(t, domain.JobWaitStall("aicr recipe job r", w, stale), "pod clock off by %s: a stale wait", skew)
		assert.NotNil(t, domain.JobDeletionStall("aicr recipe job r", stamped, happened.Add(domain.JobDeletionBound+domain.ClockSkewTolerance+skew.Abs())),
			"API server clock off by %s: a stale deletion", skew)
	}
}

// TestAdvance_EngineSyncSinceCreationToleratesSkew: before a rollout ends, engine objects written
// by an earlier rollout toward the same plan count as made when the engine synced them since the
// rollout's creation (the API server's clock). A sync 30 seconds after it, stamped by an engine
// whose clock is off, counts; a sync an hour before it never does.
func TestAdvance_EngineSyncSinceCreationToleratesSkew(t *testing.T) {
	t.Parallel()
	syncedAt := func(at time.Time) func(r recorders, to string) {
		return func(r recorders, to string) {
			var live []ports.ReleaseStatus
			for _, id := range []string{"cert-manager", "gpu-operator"} {
				st := written(ref(id), to, true)
				st.Owner.Rollout, st.LastSyncAt = "rollout-0123456789abcdef-0", at
				live = append(live, st)
			}
			r.engine.List(gomock.Any()).Return(live, nil)
		}
	}
	for _, skew := range skews {
		out := advanceAt(t, spec(t), progressing(2), env(t), t0.Add(time.Hour), syncedAt(t0.Add(30*time.Second+skew)))
		assert.Equal(t, domain.PhaseSucceeded, out.Phase(), "engine clock off by %s: the sync after creation counts", skew)
	}
	out := advanceAt(t, spec(t), progressing(2), env(t), t0.Add(time.Hour), syncedAt(t0.Add(-time.Hour)))
	assert.Equal(t, domain.PhaseProgressing, out.Phase(), "a sync an hour before creation does not count")
	assert.Equal(t, 0, out.Status.Step)
}

// TestRemoteTimes: RemoteElapsed waits the tolerance past the bound; RemoteNotBefore accepts a
// remote time up to the tolerance before the local one, never a zero one.
func TestRemoteTimes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	assert.False(t, domain.RemoteElapsed(at, at.Add(time.Minute+domain.ClockSkewTolerance-time.Nanosecond), time.Minute))
	assert.True(t, domain.RemoteElapsed(at, at.Add(time.Minute+domain.ClockSkewTolerance), time.Minute))
	assert.True(t, domain.RemoteNotBefore(at.Add(-domain.ClockSkewTolerance), at))
	assert.False(t, domain.RemoteNotBefore(at.Add(-domain.ClockSkewTolerance-time.Nanosecond), at))
	assert.False(t, domain.RemoteNotBefore(time.Time{}, at))
}
