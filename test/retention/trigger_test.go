package retention_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	waitFor = 30 * time.Second
	tick    = 20 * time.Millisecond
)

// startManager runs the retention controller in a manager (cached reads, an interval of an
// hour, so only its triggers run it during the test) until the test ends.
func startManager(t *testing.T) {
	t.Helper()
	mgr, err := ctrl.NewManager(controlPlane.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	r, err := retention.New(mgr.GetClient(), mgr.GetAPIReader(),
		mgr.GetEventRecorderFor(retention.RecorderName), operatorNamespace, time.Hour, shared.Release{}, sealtest.New())
	require.NoError(t, err)
	require.NoError(t, r.SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, mgr.Start(ctx))
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// passes returns how many retention passes ran in this process.
func passes(t *testing.T) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	require.NoError(t, err)
	var n float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "retention" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}

func exists(t *testing.T, obj client.Object, key client.ObjectKey) bool {
	t.Helper()
	err := k8s.Get(context.Background(), key, obj)
	require.NoError(t, client.IgnoreNotFound(err))
	return err == nil
}

func TestRetentionRunsWhenTheCandidateMovesOrARolloutEndsRET1RET2(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	uid := createRuntime(t, nil, aicrv1alpha1.ClusterRuntimeStatus{CandidatePlanDigest: digest(candidatePlan)})
	for i := 1; i <= 5; i++ {
		storePlan(t, i, uid, fmt.Sprintf("recipe-s%d", i), "", fmt.Sprintf("values-s%d", i))
	}
	storePlan(t, candidatePlan, uid, "recipe-c", "", "values-c")
	for i := 1; i <= 10; i++ {
		createRollout(t, fmt.Sprintf("rollout-a-%02d", i), uid, string(aicrv1alpha1.PhaseFailed), nil)
	}
	createRollout(t, "rollout-a-11", uid, "", nil)
	before := passes(t)
	startManager(t)
	require.Eventually(t, func() bool { return passes(t) > before }, waitFor, tick, "the first pass runs at start")
	oldest := client.ObjectKey{Namespace: operatorNamespace, Name: planName(1)}
	assert.True(t, exists(t, &aicrv1alpha1.ClusterRuntime{}, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}))
	assert.Len(t, configMaps(t, operatorNamespace), 18, "five superseded plans and the candidate are all kept")
	assert.Len(t, rollouts(t), 11, "ten terminal rollouts and one in progress are all kept")

	// A new candidate supersedes the old one: six superseded plans, the oldest goes.
	storePlan(t, candidatePlan+1, uid, "recipe-c2", "", "values-c2")
	setStatus(t, aicrv1alpha1.ClusterRuntimeStatus{CandidatePlanDigest: digest(candidatePlan + 1)})
	require.Eventually(t, func() bool { return !exists(t, &corev1.ConfigMap{}, oldest) }, waitFor, tick)

	// The rollout in progress ends: eleven terminal rollouts, the oldest goes.
	ro := &aicrv1alpha1.RuntimeRollout{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Name: "rollout-a-11"}, ro))
	ro.Labels[aicrv1alpha1.LabelOutcome] = string(aicrv1alpha1.PhaseFailed)
	require.NoError(t, k8s.Update(context.Background(), ro))
	require.Eventually(t, func() bool {
		return !exists(t, &aicrv1alpha1.RuntimeRollout{}, client.ObjectKey{Name: "rollout-a-01"})
	}, waitFor, tick)
	assert.Len(t, rollouts(t), 10)
}
