//go:build handover

package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/procstat"
)

// Replica users: each replica authenticates as its own user acting as the operator's
// ServiceAccount, so the audit log names the replica that wrote.
const (
	userA = "replica-a"
	userB = "replica-b"
)

// TestHandoverLeaderKilledThenStopped runs two replicas of the real operator binary with the
// chart's leader election flags through one initial install. With step 3 in flight the leader
// is killed (SIGKILL): the standby takes the Lease over within the bound the flags set and
// finishes the step. The killed replica comes back as a standby; with step 8 in flight the new
// leader is stopped (SIGSTOP) past its lease: the other takes over and makes progress, and the
// stopped one, continued (SIGCONT) as the step in flight finishes, attempts no write after
// losing the Lease (its Lease fence refuses them) and exits. The audit
// log shows every write by the replica holding the Lease and each Application written once.
func TestHandoverLeaderKilledThenStopped(t *testing.T) {
	flags := chartDefaults
	h := startHandoverCluster(t, flags)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	a := h.addReplica(userA)
	h.waitLease(ctx, userA, time.Time{})
	b := h.addReplica(userB)
	h.createRuntime(ctx)

	h.holdAt(ctx, 3)
	killed := time.Now()
	a.signal(syscall.SIGKILL)
	tookOver := h.waitLease(ctx, userB, killed)
	t.Logf("handover: SIGKILL of the leader with step 3 in flight: %s took the Lease over after %s (bound %s)",
		userB, tookOver.Sub(killed).Round(time.Millisecond), flags.takeoverBound())
	assert.LessOrEqual(t, tookOver.Sub(killed), flags.takeoverBound(), "takeover after SIGKILL")
	require.Eventually(t, a.exited, time.Minute, pollInterval, "the killed replica's process ended")
	require.Equal(t, []string{userA}, h.restartExited())

	h.holdAt(ctx, 8)
	stopped := time.Now()
	b.signal(syscall.SIGSTOP)
	tookOver = h.waitLease(ctx, userA, stopped)
	t.Logf("handover: SIGSTOP of the leader with step 8 in flight: %s took the Lease over after %s (bound %s)",
		userA, tookOver.Sub(stopped).Round(time.Millisecond), flags.takeoverBound())
	assert.LessOrEqual(t, tookOver.Sub(stopped), flags.takeoverBound(), "takeover after SIGSTOP")
	next := h.holdAt(ctx, 9)
	progress, found := h.readWrites().firstWrite(userA, tookOver)
	require.True(t, found, "%s made progress", userA)
	t.Logf("handover: %s's first write as the new leader %s after it took the Lease over",
		userA, progress.Sub(tookOver).Round(time.Millisecond))
	continued := time.Now()
	b.signal(syscall.SIGCONT)
	// The step in flight finishes once the continued replica's watches caught up, half its
	// renew deadline after SIGCONT, while its leader election still counts it the leader: its
	// controllers see the same work as the new leader's.
	<-time.After(flags.renewDeadline / 2)
	require.NoError(t, h.release(ctx, next))
	if assert.Eventually(t, b.exited, flags.duration, pollInterval, "the continued replica exits (leader election lost)") {
		t.Logf("handover: the continued replica %s exited %s after SIGCONT", userB, time.Since(continued).Round(100*time.Millisecond))
		require.Equal(t, []string{userB}, h.restartExited())
	}
	h.finish(ctx)

	w := h.readWrites()
	late := w.writesAfter(userB, tookOver, true)
	t.Logf("handover: writes by %s after %s took the Lease over: %d accepted, %d attempted",
		userB, userA, len(w.writesAfter(userB, tookOver, false)), len(late))
	assert.Empty(t, late, "the stopped leader attempts no write once it lost the Lease")
	assert.Empty(t, w.notByHolder(userA, userB), "every write is by the replica holding the Lease")
	assertWrittenOnce(t, h, w)
}

// TestHandoverAPIServerFrozen runs two replicas with a lease longer than the 20 s freeze
// through one initial install and stops the kube-apiserver process (SIGSTOP) twice, each time
// right after a step's Application became healthy: for 20 s, within the renew deadline, the
// leader keeps the Lease and continues; for longer than the lease, the leader gives up at its
// renew deadline and exits, and after SIGCONT one replica takes the Lease and finishes. The
// audit log shows every write by the replica holding the Lease and each Application written
// once; the recovery after each freeze is bounded; the rollout's status names the step it
// waits for, and no Retrying condition shows: no reconcile failed.
func TestHandoverAPIServerFrozen(t *testing.T) {
	flags := leaseFlags{duration: 30 * time.Second, renewDeadline: 25 * time.Second, retryPeriod: 2 * time.Second}
	h := startHandoverCluster(t, flags)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	a := h.addReplica(userA)
	h.waitLease(ctx, userA, time.Time{})
	h.addReplica(userB)
	h.createRuntime(ctx)
	apiserver, err := procstat.Child("kube-apiserver")
	require.NoError(t, err)

	held := h.holdAt(ctx, 3)
	retrying := h.watchRetrying()
	require.NoError(t, h.release(ctx, held))
	thawed := freeze(t, apiserver, 20*time.Second)
	held = h.holdAt(ctx, 4)
	recovered := time.Since(thawed)
	t.Logf("handover: after a 20 s freeze the next step's Application appeared %s after SIGCONT (bound %s)",
		recovered.Round(100*time.Millisecond), freezeRecoveryBound)
	assert.LessOrEqual(t, recovered, freezeRecoveryBound, "recovery after a freeze within the renew deadline")
	assert.Equal(t, userA, h.readWrites().holder(), "a freeze within the renew deadline hands nothing over")
	assert.False(t, a.exited(), "the leader keeps running through a freeze within its renew deadline")
	t.Logf("handover: the rollout's status after the 20 s freeze: %s", h.waitsOn(ctx, held))

	held = h.holdAt(ctx, 6)
	former := h.readWrites().holder()
	require.NoError(t, h.release(ctx, held))
	long := flags.duration + 10*time.Second
	thawed = freeze(t, apiserver, long)
	held = h.holdAt(ctx, 7)
	recovered = time.Since(thawed)
	w := h.readWrites()
	leader := w.holder()
	took, found := w.firstLeaseWrite(leader, thawed)
	require.True(t, found, "%s wrote the Lease after the freeze", leader)
	t.Logf("handover: after a %s freeze %s took the Lease %s and the next step's Application appeared %s after SIGCONT (bound %s)",
		long, leader, took.Sub(thawed).Round(100*time.Millisecond), recovered.Round(100*time.Millisecond), flags.takeoverBound())
	assert.LessOrEqual(t, recovered, flags.takeoverBound(), "recovery after a freeze past the lease")
	require.Equal(t, userA, former)
	require.Eventually(t, a.exited, flags.duration, pollInterval, "the leader gave up the Lease at its renew deadline and exited")
	t.Logf("handover: restarted after the freeze past the lease: %v", h.restartExited())
	t.Logf("handover: the rollout's status after the freeze past the lease: %s", h.waitsOn(ctx, held))
	h.finish(ctx)
	assert.Empty(t, retrying.end(), "no reconcile failed: the operator's requests waited for the API server and completed")

	w = h.readWrites()
	t.Logf("handover: Lease writes by %s answered after SIGCONT: %d", former, len(w.leaseWritesAfter(former, thawed)))
	if leader != former { // the restarted replica may win the expired Lease instead
		late := w.writesAfter(former, took, false)
		t.Logf("handover: writes by %s after %s took the Lease: %d", former, leader, len(late))
		assert.Empty(t, late, "the leader that gave up writes nothing once another holds the Lease")
	}
	assert.Empty(t, w.notByHolder(userA, userB), "every write is by the replica holding the Lease")
	assertWrittenOnce(t, h, w)
}

// freezeRecoveryBound bounds the recovery after a freeze within the renew deadline: the
// longest backoff between two attempts of a failed reconcile (30 s) plus slack for a loaded
// machine.
const freezeRecoveryBound = 35 * time.Second

// freeze stops the process pid for d (a real process: no fake clock can stand in) and
// continues it, returning when it did.
func freeze(t *testing.T, pid int, d time.Duration) time.Time {
	t.Helper()
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	<-time.After(d)
	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	return time.Now()
}

// assertWrittenOnce asserts that the replicas wrote each Application of the install once (its
// create) and nothing else: no step was written twice across the handovers.
func assertWrittenOnce(t *testing.T, h *handoverCluster, w writes) {
	t.Helper()
	counts, others := w.applicationWrites(userA, userB)
	assert.Empty(t, others, "Application writes other than the create")
	apps := &argov1.ApplicationList{}
	require.NoError(t, h.admin.List(context.Background(), apps))
	assert.Len(t, counts, len(apps.Items), "every Application written")
	for name, n := range counts {
		assert.Equal(t, 1, n, "writes of Application %s", name)
	}
}
