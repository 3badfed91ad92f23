package faults_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	waitFor = 60 * time.Second
	tick    = 20 * time.Millisecond
	// leaseName is the leader-election Lease the operator processes contend for.
	leaseName = "aicr-operator-faults"
)

// world is what one test's operator processes act on: the simulated AICR and Argo CD (both
// as the administrator, outside the fault transport), a fake clock and the transport.
type world struct {
	t      *testing.T
	clock  *clock.Fake
	faults *faults
	exec   *jobexec.Executor
	// agent plays the snapshot agent's Jobs in the discovery namespace.
	agent *jobexec.Executor
	sim   *argocdsim.Sim
	// stops stop what the world started, last first (close).
	stops []func()
	// allowed are the namespaces the fixture's releases deploy into.
	allowed  []string
	registry ports.Registry
	// engineRegistry is the runtime registry repository the Argo CD adapter names charts in.
	engineRegistry string
	// stopArgoCD stops Argo CD's stand-in (startArgoCD).
	stopArgoCD func()
	// validation plays the deployment validation Jobs of a world withValidation (nil: validation off).
	validation *jobexec.Executor
}

// newWorld cleans what an earlier test left and starts AICR's and Argo CD's stand-ins until the
// test ends; the runtime registry is a double (registry).
func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldOn(t, nil)
}

// newWorldOn is newWorld whose charts and evidence go to net's runtime registry through the
// operator's own registry adapter, and whose bundles name net's upstream chart repositories
// (nil: the registry double, upstreams never fetched).
func newWorldOn(t *testing.T, net *network.Server) *world {
	t.Helper()
	clean(t)
	var upstream func(map[string][]byte)
	reg, engineRegistry := registry(t), "registry.example.com/aicr"
	if net != nil {
		upstream, reg, engineRegistry = network.PointUpstreamAt(net.URL()), networkRegistry(t, net), net.Host()+"/aicr"
	}
	f, err := jobexec.BundleFixture(version, fixtureDir, upstream)
	require.NoError(t, err)
	overridden, err := jobexec.BundleFixture(version, fixtureDir, func(files map[string][]byte) {
		if upstream != nil {
			upstream(files)
		}
		files["009-gpu-operator/cluster-values.yaml"] = []byte("driver:\n  version: " + overrideValue + "\n")
	})
	require.NoError(t, err)
	allowed, err := jobexec.FixtureNamespaces(fixtureDir)
	require.NoError(t, err)
	w := &world{t: t, clock: clock.NewFake(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), faults: newFaults(),
		allowed: allowed, registry: reg, engineRegistry: engineRegistry}
	w.exec, err = jobexec.New(controlPlane.Config, scheme, jobNS, image, jobexec.TransitionBehavior(f, overridden))
	require.NoError(t, err)
	w.agent, err = jobexec.New(controlPlane.Config, scheme, discoveryNS, image, jobexec.TransitionBehavior(f, overridden))
	require.NoError(t, err)
	w.agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)
	w.stopArgoCD = w.startArgoCD()
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); _ = w.exec.Run(ctx) }()
	go func() { defer running.Done(); _ = w.agent.Run(ctx) }()
	w.stops = append(w.stops, func() {
		w.stopArgoCD()
		cancel()
		running.Wait()
		require.Empty(t, w.exec.Violations(), "job spec assertions")
		require.Empty(t, w.agent.Violations(), "snapshot agent assertions")
	})
	t.Cleanup(w.close)
	t.Cleanup(w.explain)
	return w
}

// startArgoCD starts Argo CD's stand-in (w.sim) in a manager of its own and returns what stops
// it and waits until it stopped; stopping twice is stopping once.
func (w *world) startArgoCD() func() {
	w.t.Helper()
	mgr, err := ctrl.NewManager(controlPlane.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(w.t, err)
	w.sim = argocdsim.New(mgr.GetClient(), argocd.DefaultNamespace, w.clock)
	require.NoError(w.t, w.sim.SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	return func() {
		cancel()
		<-done
	}
}

// explain logs, when the test failed, the runtime's status, the rollouts' and the writes, so a
// failure says where the run stopped.
func (w *world) explain() {
	if !w.t.Failed() {
		return
	}
	ctx := context.Background()
	cr := &aicrv1alpha1.ClusterRuntime{}
	if k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) == nil {
		w.t.Logf("runtime status: %+v", cr.Status)
	}
	var ros aicrv1alpha1.RuntimeRolloutList
	if k8s.List(ctx, &ros) == nil {
		for _, ro := range ros.Items {
			w.t.Logf("rollout %s labels %v status %+v", ro.Name, ro.Labels, ro.Status)
		}
	}
	for _, x := range w.faults.recorded() {
		w.t.Logf("write %+v", x)
	}
}

// close stops the world's operator processes, then AICR's and Argo CD's stand-ins.
func (w *world) close() {
	for i := len(w.stops) - 1; i >= 0; i-- {
		w.stops[i]()
	}
	w.stops = nil
}

// overrideValue is the gpu-operator driver version a transition's override sets.
const overrideValue = "580.95.05"

// process is one running operator: the resolver and the rollout controllers with the Argo CD
// adapter in one manager, every request through the world's transport as name.
type process struct {
	name   string
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	mgr    ctrl.Manager
}

// processOptions tune a process.
type processOptions struct {
	// leaderElect contends for the suite's Lease with short timings.
	leaderElect bool
}

// start runs an operator process named name until stop or the end of the test.
func (w *world) start(name string, o processOptions) *process {
	w.t.Helper()
	cfg := w.faults.config(name)
	opts := ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if o.leaderElect {
		opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = true, leaseName, operatorNS
		opts.LeaderElectionReleaseOnCancel = true
		// A leader that cannot renew stops leading after RenewDeadline; a standby takes over
		// only LeaseDuration after the last renewal it saw. The 2 s between them is what keeps
		// the old leader's last writes before the new leader's first.
		opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = ptr.To(3*time.Second), ptr.To(time.Second), ptr.To(100*time.Millisecond)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	require.NoError(w.t, err)
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(w.t, err)
	agent, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: discoveryNS, OperatorNamespace: operatorNS, Image: image,
		ServiceAccount: jobs.AgentServiceAccount, Agent: true}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(w.t, err)
	res, err := resolver.New(mgr.GetClient(), mgr.GetAPIReader(), runner, agent, aicr.Reader{}, w.registry, w.clock,
		mgr.GetEventRecorderFor(resolver.FieldManager), resolver.Config{
			OperatorNamespace: operatorNS, JobNamespace: jobNS, DiscoveryNamespace: discoveryNS, Image: image,
			AICRVersion: version, AllowedNamespaces: w.allowed, Sealer: sealtest.New(),
		})
	require.NoError(w.t, err)
	require.NoError(w.t, res.SetupWithManager(mgr))
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(w.t, err)
	ports := domain.Ports{
		Engine: argocd.NewEngine(mgr.GetClient(), dc, argocd.Config{Registry: w.engineRegistry}),
		Jobs:   runner, Clock: w.clock, Sealer: sealtest.New(),
	}
	options := shared.Options{OperatorNamespace: operatorNS, RolloutWindow: time.Hour, RequeueCap: 50 * time.Millisecond}
	if w.validation != nil {
		ports.Jobs, ports.Registry = w.validationJobs(mgr), w.registry
		options.ValidationEnabled, options.ValidationImage, options.ValidationNamespace = true, image, validationNS
	}
	require.NoError(w.t, controllers.RolloutControllers(mgr, controllers.Setup{
		Ports:               ports,
		Options:             options,
		EngineObject:        argocd.NewApplicationObject(),
		EngineServed:        func(context.Context) (bool, error) { return argocd.ApplicationServed(dc) },
		EngineWatchInterval: 50 * time.Millisecond,
	}))
	ctx, cancel := context.WithCancel(context.Background())
	p := &process{name: name, cancel: cancel, done: make(chan struct{}), mgr: mgr}
	go func() {
		defer close(p.done)
		p.err = mgr.Start(ctx)
	}()
	w.stops = append(w.stops, p.stop)
	return p
}

// stop cancels the process's manager and waits until it returned; stopping twice is stopping once.
func (p *process) stop() {
	p.cancel()
	<-p.done
}

// createRuntime creates the ClusterRuntime (EKS H100 Ubuntu, validation Disabled) and returns its UID.
func (w *world) createRuntime() string {
	w.t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: jobexec.FixtureRuntimeSpec()}
	require.NoError(w.t, k8s.Create(context.Background(), cr))
	return string(cr.UID)
}

// clean removes what an earlier test left, with no operator running: the runtime (its
// finalizer removed by hand), rollouts, Applications, Jobs and operator ConfigMaps.
func clean(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	key := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}}
	require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, key)))
	require.NoError(t, client.IgnoreNotFound(k8s.Patch(ctx, key, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))))
	require.NoError(t, k8s.DeleteAllOf(ctx, &aicrv1alpha1.RuntimeRollout{}))
	require.NoError(t, k8s.DeleteAllOf(ctx, &argov1.Application{}, client.InNamespace(argocd.DefaultNamespace)))
	for _, ns := range []string{jobNS, discoveryNS} {
		require.NoError(t, k8s.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(ns), client.PropagationPolicy(metav1.DeletePropagationBackground)))
		require.NoError(t, k8s.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns)))
	}
	require.NoError(t, k8s.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(operatorNS), client.HasLabels{aicrv1alpha1.LabelRole}))
	require.Eventually(t, func() bool {
		var ros aicrv1alpha1.RuntimeRolloutList
		var apps argov1.ApplicationList
		var js, agentJobs batchv1.JobList
		return k8s.List(ctx, &ros) == nil && len(ros.Items) == 0 &&
			k8s.List(ctx, &apps, client.InNamespace(argocd.DefaultNamespace)) == nil && len(apps.Items) == 0 &&
			k8s.List(ctx, &js, client.InNamespace(jobNS)) == nil && len(js.Items) == 0 &&
			k8s.List(ctx, &agentJobs, client.InNamespace(discoveryNS)) == nil && len(agentJobs.Items) == 0 &&
			k8s.Get(ctx, client.ObjectKeyFromObject(key), &aicrv1alpha1.ClusterRuntime{}) != nil
	}, waitFor, tick, "the cluster is clean")
}
