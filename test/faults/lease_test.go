package faults_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// TestLeaseLostMidStep runs two operator processes contending for one Lease. Once the leader
// made a step's mutation (created an Application, which Argo CD keeps Progressing) its Lease
// renewals fail: it loses the Lease and stops, and the other process takes the Lease over and
// finishes the step and the rollout once Argo CD reports the Application healthy. The old
// leader writes nothing once the new one holds the Lease, and nothing is written twice.
func TestLeaseLostMidStep(t *testing.T) {
	base := baseline(t)
	require.NoError(t, k8s.DeleteAllOf(context.Background(), &coordinationv1.Lease{}, client.InNamespace(operatorNS)))
	w := newWorld(t)
	// Argo CD never reports the first Application healthy while the first leader runs: its
	// step stays in flight.
	w.sim.SetDefault(argocdsim.Progressing)
	const leaderName, standbyName = "operator-a", "operator-b"
	partitioned := make(chan struct{})
	w.faults.onWrite(&hook{verb: "create", resource: "applications", namespace: argocd.DefaultNamespace, match: nil, run: func(x write) {
		if x.proc != leaderName {
			t.Errorf("the standby %s wrote an Application while the leader held the Lease", x.proc)
		}
		w.faults.inject(&rule{proc: leaderName, verb: "update", resource: "leases", fault: serverError, times: math.MaxInt})
		close(partitioned)
	}})
	leader := w.start(leaderName, processOptions{leaderElect: true})
	require.Eventually(t, func() bool { return holder(w) == leaderName }, waitFor, tick, "%s leads", leaderName)
	w.start(standbyName, processOptions{leaderElect: true})
	uid := w.createRuntime()
	select {
	case <-partitioned:
	case <-time.After(waitFor):
		require.FailNow(t, "the leader never made a step's mutation")
	}
	select {
	case <-leader.done:
	case <-time.After(waitFor):
		require.FailNow(t, "the leader never stopped after losing its Lease")
	}
	require.ErrorContains(t, leader.err, "leader election lost")
	w.sim.SetDefault(argocdsim.Healthy)
	_, err := w.sim.SettleAll(context.Background())
	require.NoError(t, err)
	w.waitInstalled(base.digest)
	assertInstalled(t, base.digest, uid)
	writes := w.faults.recorded()
	assertCreatedOnce(t, writes, base.creates)

	takeover := -1
	for i, x := range writes {
		if x.proc == standbyName && x.resource == "leases" && x.code >= 200 && x.code <= 299 {
			takeover = i
			break
		}
	}
	require.GreaterOrEqual(t, takeover, 0, "%s took the Lease over", standbyName)
	standbyWrote := false
	for i, x := range writes {
		ok := x.code >= 200 && x.code <= 299
		if i > takeover && x.proc == leaderName && ok {
			t.Errorf("the old leader wrote after %s took the Lease over: %+v", standbyName, x)
		}
		if i < takeover && x.proc == standbyName && ok && x.resource != "leases" {
			t.Errorf("%s wrote before it held the Lease: %+v", standbyName, x)
		}
		standbyWrote = standbyWrote || (i > takeover && x.proc == standbyName && ok && x.resource != "leases")
	}
	assert.True(t, standbyWrote, "%s finished the step", standbyName)
}

// holder is the process holding the suite's Lease ("" when none).
func holder(w *world) string {
	lease := &coordinationv1.Lease{}
	if k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: leaseName}, lease) != nil || lease.Spec.HolderIdentity == nil {
		return ""
	}
	for _, x := range w.faults.recorded() {
		if x.resource == "leases" && x.code >= 200 && x.code <= 299 && x.name == leaseName {
			return x.proc
		}
	}
	return ""
}
