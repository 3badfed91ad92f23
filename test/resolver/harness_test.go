package resolver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	v1Synthetic = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
	wait        = 20 * time.Second
	tick        = 10 * time.Millisecond
)

// harness is one running resolver (its own manager) and job executor.
type harness struct {
	exec *jobexec.Executor
	// agent plays the snapshot agent's Jobs in the discovery namespace.
	agent *jobexec.Executor
	clock *clock.Fake
	opts  options
	// stopResolver stops the running resolver's manager and waits for it (again: no-op).
	stopResolver func()
}

// options configures a harness.
type options struct {
	version  string
	allowed  []string
	behavior jobexec.Behavior
	registry ports.Registry
}

// start runs a manager with the resolver and an executor until the test ends.
func start(t testing.TB, o options) *harness {
	t.Helper()
	h := &harness{clock: clock.NewFake(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), opts: o}
	var err error
	h.exec, err = jobexec.New(restConfig, scheme, jobNS, image, o.behavior)
	require.NoError(t, err)
	// AICR's Jobs run on the runtime's system node group, the agent on the accelerated one.
	h.exec.ExpectNodeSelector(map[string]string{"aicr.test/pool": "system"})
	h.agent, err = jobexec.New(restConfig, scheme, discoveryNS, image, o.behavior)
	require.NoError(t, err)
	h.agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)
	h.runResolver(t)
	execCtx, stopExec := context.WithCancel(context.Background())
	execDone := make(chan struct{}, 2)
	for _, e := range []*jobexec.Executor{h.exec, h.agent} {
		go func() { _ = e.Run(execCtx); execDone <- struct{}{} }()
	}
	t.Cleanup(func() {
		h.stopResolver()
		clearJobs(t)
		stopExec()
		<-execDone
		<-execDone
		require.Empty(t, h.exec.Violations(), "job spec assertions")
		require.Empty(t, h.agent.Violations(), "snapshot agent assertions")
	})
	return h
}

// runResolver starts a new manager with a new resolver of the harness's options; the
// executors stay. A test stops the running one first to change what the resolver will find.
func (h *harness) runResolver(t testing.TB) {
	t.Helper()
	o := h.opts
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:     scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(t, err)
	agent, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: discoveryNS, OperatorNamespace: operatorNS, Image: image,
		ServiceAccount: jobs.AgentServiceAccount, Agent: true}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(t, err)
	r, err := resolver.New(mgr.GetClient(), mgr.GetAPIReader(), runner, agent, aicr.Reader{}, o.registry, h.clock,
		mgr.GetEventRecorderFor("aicr-resolver"), resolver.Config{
			OperatorNamespace: operatorNS, JobNamespace: jobNS, DiscoveryNamespace: discoveryNS, Image: image,
			AICRVersion: o.version, AllowedNamespaces: o.allowed, Sealer: sealtest.New(),
		})
	require.NoError(t, err)
	require.NoError(t, r.SetupWithManager(mgr))
	mgrCtx, stopMgr := context.WithCancel(context.Background())
	mgrDone := make(chan struct{})
	go func() { _ = mgr.Start(mgrCtx); close(mgrDone) }()
	h.stopResolver = func() {
		stopMgr()
		<-mgrDone
	}
}

// SetBehavior replaces the behavior of both executors.
func (h *harness) SetBehavior(b jobexec.Behavior) {
	h.exec.SetBehavior(b)
	h.agent.SetBehavior(b)
}

// Executed returns the names of the Jobs both executors played.
func (h *harness) Executed() []string {
	return append(h.agent.Executed(), h.exec.Executed()...)
}

// clearJobs deletes every Job and every role-labelled ConfigMap a test left.
// It runs once the resolver has stopped, so no reconcile of a stale cache can
// start a Job the next test would find, and while the executor still runs, so
// a Job deleted in the foreground has its finalizer removed.
func clearJobs(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range []string{jobNS, discoveryNS} {
		require.NoError(t, k8s.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(ns),
			client.PropagationPolicy(metav1.DeletePropagationBackground)))
	}
	require.NoError(t, k8s.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(operatorNS),
		client.HasLabels{aicrv1alpha1.LabelRole}))
	require.Eventually(t, noJobs, wait, tick, "jobs of the test deleted")
}

// noJobs reports that the Job and discovery namespaces hold no Job.
func noJobs() bool {
	for _, ns := range []string{jobNS, discoveryNS} {
		list := &batchv1.JobList{}
		if k8s.List(context.Background(), list, client.InNamespace(ns)) != nil || len(list.Items) > 0 {
			return false
		}
	}
	return true
}

// fixture loads a bundle fixture and the namespaces its releases use.
func fixture(t testing.TB, version, dir string, mutate func(map[string][]byte)) (jobexec.Fixture, []string) {
	t.Helper()
	f, err := jobexec.BundleFixture(version, dir, mutate)
	require.NoError(t, err)
	ns, err := jobexec.FixtureNamespaces(dir)
	require.NoError(t, err)
	return f, ns
}

// wantDigest is what `kubectl aicr plan --bundle` prints: ReadDir + BuildPlan.
func wantDigest(t testing.TB, dir string) string {
	t.Helper()
	return wantPlan(t, dir).Digest
}

// wantPlan is the plan `kubectl aicr plan --bundle` builds of a fixture bundle.
func wantPlan(t testing.TB, dir string) *domain.Plan {
	t.Helper()
	b, err := aicr.ReadDir(filepath.Join(jobexec.Root(), "test", "testdata", "aicr", dir))
	require.NoError(t, err)
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "any", Source: domain.SourceResolved, Bundle: b})
	require.NoError(t, err)
	return p
}

// runtimeSpec is the default spec: EKS H100 Ubuntu, pools system and gpu.
func runtimeSpec() aicrv1alpha1.ClusterRuntimeSpec {
	return aicrv1alpha1.ClusterRuntimeSpec{
		Intent: "training", Platform: "kubeflow",
		Criteria: map[string]aicrv1alpha1.CriterionValue{"service": "eks", "accelerator": "h100", "os": "ubuntu"},
		Placement: aicrv1alpha1.Placement{
			System:      aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"aicr.test/pool": "system"}},
			Accelerated: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"aicr.test/pool": "gpu"}},
		},
	}
}

// createRuntime creates the ClusterRuntime and deletes it when the test ends
// (the harness then deletes every Job, see clearJobs).
func createRuntime(t testing.TB, spec aicrv1alpha1.ClusterRuntimeSpec) *aicrv1alpha1.ClusterRuntime {
	t.Helper()
	ctx := context.Background()
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}, Spec: spec}
	require.NoError(t, k8s.Create(ctx, cr))
	t.Cleanup(func() {
		require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, cr)))
		require.Eventually(t, func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(cr), &aicrv1alpha1.ClusterRuntime{}))
		}, wait, tick)
	})
	return cr
}

// resolved polls the live runtime until Resolved has reason (and returns it).
func resolved(t testing.TB, reason string) (metav1.Condition, *aicrv1alpha1.ClusterRuntime) {
	t.Helper()
	return resolvedWith(t, reason, "")
}

// resolvedWith polls the live runtime until Resolved has reason and a message containing contains.
func resolvedWith(t testing.TB, reason, contains string) (metav1.Condition, *aicrv1alpha1.ClusterRuntime) {
	t.Helper()
	return resolvedMatching(t, reason, contains, 0)
}

// resolvedFor polls the live runtime until Resolved has reason for generation gen or a later
// one. Right after a spec change the condition of the previous generation still carries the
// reason (Resolved stays Resolved until the resolver applies its next outcome), so only its
// observedGeneration tells the outcome of the new spec from the old one.
func resolvedFor(t testing.TB, reason string, gen int64) (metav1.Condition, *aicrv1alpha1.ClusterRuntime) {
	t.Helper()
	return resolvedMatching(t, reason, "", gen)
}

// resolvedMatching polls the live runtime until Resolved has reason, a message containing
// contains and an observedGeneration of at least gen.
func resolvedMatching(t testing.TB, reason, contains string, gen int64) (metav1.Condition, *aicrv1alpha1.ClusterRuntime) {
	t.Helper()
	var cond metav1.Condition
	live := &aicrv1alpha1.ClusterRuntime{}
	require.Eventually(t, func() bool {
		if k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live) != nil {
			return false
		}
		c := meta.FindStatusCondition(live.Status.Conditions, aicrv1alpha1.ConditionResolved)
		if c == nil || c.Reason != reason || !strings.Contains(c.Message, contains) || c.ObservedGeneration < gen {
			return false
		}
		cond = *c
		return true
	}, wait, tick, "Resolved reason %s of generation %d or later; conditions %+v", reason, gen, &live.Status.Conditions)
	return cond, live
}

// planConfigMap reads the plan ConfigMap of digest.
func planConfigMap(t testing.TB, digest string) *corev1.ConfigMap {
	t.Helper()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNS, Name: name}, cm))
	return cm
}
