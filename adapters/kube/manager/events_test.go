package manager_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestRecorderKeepsEveryEventOfALongRollout records 2 Events per step of a 256-step rollout
// (RO-5's most) and one at its end on one object through the manager's recorder, and finds
// each of them, uncombined, on the API server: client-go's defaults would keep 25 and combine
// similar ones after 10 (OPS-1).
func TestRecorderKeepsEveryEventOfALongRollout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := runs.Add(1)
	ns := fmt.Sprintf("aicr-events-%d", run)
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	involved := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rollout", Namespace: ns}}
	require.NoError(t, admin.Create(ctx, involved))

	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: ns, MetricsBindAddress: "0", HealthProbeBindAddress: "0",
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	const steps = 256
	recorder := mgr.GetEventRecorderFor("aicr-rollout")
	for i := 1; i <= steps; i++ {
		recorder.Eventf(involved, corev1.EventTypeNormal, "StepStarted", "step %d/%d started", i, steps)
		recorder.Eventf(involved, corev1.EventTypeNormal, "StepSucceeded", "step %d/%d ready", i, steps)
	}
	recorder.Event(involved, corev1.EventTypeNormal, "RolloutEnded", "rollout succeeded")

	want := 2*steps + 1
	var got int
	require.Eventually(t, func() bool {
		var list corev1.EventList
		require.NoError(t, admin.List(ctx, &list, client.InNamespace(ns)))
		got = 0
		for _, e := range list.Items {
			if e.InvolvedObject.UID == involved.UID && e.Count <= 1 {
				got++
			}
		}
		return got == want
	}, 60*time.Second, 100*time.Millisecond, "Events on the rollout: %d of %d", got, want)

	cancel()
	require.NoError(t, <-done)
}
