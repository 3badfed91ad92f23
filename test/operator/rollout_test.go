package operator_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
)

const (
	operatorNamespace = "aicr-system"
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":aicr-operator"
	// fixtureDir is the recorded AICR render the synthetic one grows from.
	fixtureDir = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
	// releases is the size of the synthetic render: the most target releases the API admits.
	releases = 128
	// syntheticNamespace is where the added releases install.
	syntheticNamespace = "gpu-operator"
)

// syntheticFixture is the recorded render grown to releases releases, whose upstream charts
// come from net, which serves a stand-in archive of each (network.AddSyntheticCharts).
func syntheticFixture(b *testing.B, net *network.Server) jobexec.Fixture {
	require.NoError(b, net.AddSyntheticCharts("1.1.0", fixtureDir, releases, syntheticNamespace))
	fixture, err := network.SyntheticFixture("1.1.0", fixtureDir, releases, syntheticNamespace, net.URL())
	require.NoError(b, err)
	return fixture
}

// installChart applies what the chart renders (minus the Deployment) with the registry of
// registryHost, its credentials, the fixture's namespaces and deployment validation on, and
// returns the operator's arguments as the Deployment passes them.
func installChart(ctx context.Context, b *testing.B, c client.Client, registryHost string) []string {
	for _, ns := range []string{operatorNamespace, "argocd"} {
		require.NoError(b, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	}
	namespaces, err := jobexec.FixtureNamespaces(fixtureDir)
	require.NoError(b, err)
	require.Contains(b, namespaces, syntheticNamespace)
	values := map[string]any{
		"aicr":       map[string]any{"version": "1.1.0"},
		"registry":   map[string]any{"repository": "oci://" + registryHost + "/aicr", "auth": map[string]any{"provider": "static"}},
		"namespaces": map[string]any{"components": chartrender.Components(namespaces...)},
		"validation": map[string]any{"enabled": true},
	}
	objs, err := chartrender.Render(operatorNamespace, values)
	require.NoError(b, err)
	require.NoError(b, chartrender.Install(ctx, c, operatorNamespace, objs, "Deployment"))
	require.NoError(b, network.CreateRegistrySecrets(ctx, c, operatorNamespace, registryHost))
	args, err := chartrender.OperatorArgs(objs, operatorNamespace)
	require.NoError(b, err)
	return args
}

// simulate runs, in this process until the benchmark ends, what plays the cluster's other
// parts: a kubelet playing the fixture's AICR container in the Job, discovery and validation
// namespaces the operator's arguments name (test/jobexec), and a stand-in Argo CD marking every
// Application synced and healthy (test/argocdsim). The benchmark fails if a Job broke AICR's
// Job contract.
func simulate(ctx context.Context, b *testing.B, cfg *rest.Config, scheme *runtime.Scheme, args []string, fixture jobexec.Fixture) {
	flag := func(name string) string { return chartrender.FlagValue(args, name) }
	aicrJobs, err := jobexec.New(cfg, scheme, flag("--jobs-namespace"), flag("--aicr-image"), fixture.Behavior())
	require.NoError(b, err)
	aicrJobs.ExpectCopierImage(flag("--operator-image"))
	agent, err := jobexec.New(cfg, scheme, flag("--discovery-namespace"), flag("--aicr-image"), fixture.Behavior())
	require.NoError(b, err)
	agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)
	validation, err := jobexec.New(cfg, scheme, flag("--validation-namespace"), flag("--aicr-image"), fixture.Behavior())
	require.NoError(b, err)
	validation.ExpectServiceAccount(flag("--validation-service-account"))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	require.NoError(b, err)
	require.NoError(b, argocdsim.New(mgr.GetClient(), flag("--engine-namespace"), clock.New()).SetupWithManager(mgr))

	ctx, cancel := context.WithCancel(ctx)
	var running sync.WaitGroup
	executors := []*jobexec.Executor{aicrJobs, agent, validation}
	for _, run := range []func(context.Context) error{aicrJobs.Run, agent.Run, validation.Run, mgr.Start} {
		running.Go(func() {
			if err := run(ctx); err != nil && ctx.Err() == nil {
				b.Errorf("simulator: %v", err)
			}
		})
	}
	b.Cleanup(func() {
		cancel()
		running.Wait()
		for _, e := range executors {
			require.Empty(b, e.Violations(), "AICR's Job contract is kept")
		}
	})
}

// rollOut applies the fixture's ClusterRuntime with deployment validation required, waits until
// the runtime is Ready (resolved, rolled out, validated) and returns the number of steps of its
// rollout.
func rollOut(ctx context.Context, b *testing.B, c client.Client, op *operatorProcess) int {
	spec := jobexec.FixtureRuntimeSpec()
	spec.Validation.Deployment = aicrv1alpha1.ValidationRequired
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}, Spec: spec}
	require.NoError(b, c.Create(ctx, cr))
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(cr.Status.Conditions, aicrv1alpha1.ConditionReady), nil
	})
	if err != nil {
		b.Fatalf("the runtime is not Ready: %v; its conditions: %+v; the operator's last log lines:\n%s", err, cr.Status.Conditions, op.lastLines())
	}
	rollouts := &aicrv1alpha1.RuntimeRolloutList{}
	require.NoError(b, c.List(ctx, rollouts))
	for _, ro := range rollouts.Items {
		if ro.Spec.ToPlanDigest == cr.Status.ActivePlanDigest {
			return len(ro.Spec.Steps)
		}
	}
	b.Fatalf("no rollout to the active plan %s", cr.Status.ActivePlanDigest)
	return 0
}
