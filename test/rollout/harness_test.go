package rollout_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/clock"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/runtime"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/adapters/workloads"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/memengine"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// epoch is where every fake clock starts.
var epoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const (
	waitFor = 60 * time.Second
	tick    = 20 * time.Millisecond
)

// harness runs the controllers in a manager that can be stopped and started again; the
// engine, jobs and clock outlive managers as the outside world does.
type harness struct {
	t      testing.TB
	clock  *clock.Fake
	engine *memengine.Engine
	// world is the engine the test rolls out on: engine, or argo once withArgo ran.
	world       engineWorld
	jobs        *fakeJobs
	runner      ports.JobRunner // when set, runs the validation Jobs instead of jobs (a real jobs.Runner)
	registry    *fakeRegistry
	opts        shared.Options
	assessments runtime.AssessmentSource
	writes      atomic.Int64
	seen        map[string]bool
	failCreate  atomic.Bool
	argo        *argoWorld

	mu          sync.Mutex
	broadcaster record.EventBroadcaster
	cancel      context.CancelFunc
	done        chan struct{}
	// cached is the running manager's cached client: what the controllers read.
	cached client.Reader
}

func newHarness(t testing.TB, instant bool) *harness {
	t.Helper()
	cleanCluster(t)
	c := clock.NewFake(epoch)
	h := &harness{t: t, clock: c, engine: memengine.New(c, instant), jobs: newFakeJobs(), registry: newFakeRegistry(),
		seen: map[string]bool{}, opts: shared.Options{OperatorNamespace: operatorNamespace, RequeueCap: 30 * time.Millisecond,
			RolloutWindow: time.Hour, ValidationEnabled: true, ValidationImage: "aicr@sha256:" + zeros,
			ValidationNamespace: validationNamespace}}
	h.world = memWorld{e: h.engine}
	t.Cleanup(h.stop)
	return h
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

// cleanCluster removes what an earlier test left: the runtime, rollouts, plans, recipes and values.
func cleanCluster(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, client.IgnoreNotFound(k8s.Delete(ctx, &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}})))
	// No operator runs between tests to remove its finalizer (CR-12): remove every finalizer.
	require.NoError(t, client.IgnoreNotFound(k8s.Patch(ctx, &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))))
	require.NoError(t, k8s.DeleteAllOf(ctx, &aicrv1alpha1.RuntimeRollout{}))
	for _, role := range []string{aicrv1alpha1.RolePlan, aicrv1alpha1.RoleRecipe, aicrv1alpha1.RoleValues} {
		require.NoError(t, k8s.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(operatorNamespace),
			client.MatchingLabels{aicrv1alpha1.LabelRole: role}))
	}
	require.Eventually(t, func() bool {
		var list aicrv1alpha1.RuntimeRolloutList
		cr := &aicrv1alpha1.ClusterRuntime{}
		return k8s.List(ctx, &list) == nil && len(list.Items) == 0 &&
			k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) != nil
	}, waitFor, tick)
}

// start runs a new manager with the rollout and runtime controllers.
func (h *harness) start() {
	h.t.Helper()
	// As the operator's manager (manager.New) does: its Event limits, which record every Event
	// of a long rollout, and caches without managedFields.
	events := manager.NewEventBroadcaster()
	mgr, err := ctrl.NewManager(controlPlane.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller:       config.Controller{SkipNameValidation: ptr.To(true)},
		EventBroadcaster: events, //nolint:staticcheck // shut down by stop, after the manager.
		Cache:            cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
	})
	if err != nil {
		events.Shutdown()
	}
	require.NoError(h.t, err)
	c := countingClient{Client: mgr.GetClient(), writes: &h.writes, onCreate: func(context.Context, client.Object) error {
		if h.failCreate.Load() {
			return errDropped
		}
		return nil
	}}
	var jobRunner ports.JobRunner = h.jobs
	if h.runner != nil {
		jobRunner = h.runner
	}
	setup := controllers.Setup{
		Ports: domain.Ports{Engine: h.engine, Jobs: jobRunner, Registry: h.registry, Clock: h.clock,
			Workloads: workloads.New(mgr.GetAPIReader()), Sealer: sealtest.New()},
		Client: c, Assessments: h.assessments, Options: h.opts,
	}
	if h.argo != nil {
		setup.Ports.Engine = h.argo.engine(mgr)
		setup.EngineObject = argocd.NewApplicationObject()
		setup.EngineServed = func(context.Context) (bool, error) { return argocd.ApplicationServed(h.argo.dc) }
		setup.EngineWatchInterval = 50 * time.Millisecond
	}
	require.NoError(h.t, controllers.RolloutControllers(mgr, setup))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	h.mu.Lock()
	h.cancel, h.done, h.cached, h.broadcaster = cancel, done, mgr.GetClient(), events
	h.mu.Unlock()
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			h.t.Errorf("manager: %v", err)
		}
	}()
}

// stop stops the running manager and waits for it.
func (h *harness) stop() {
	h.mu.Lock()
	cancel, done, events := h.cancel, h.done, h.broadcaster
	h.cancel, h.done, h.broadcaster = nil, nil, nil
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
		events.Shutdown()
	}
}

// operatorCache is the cached client of the running manager: what the controllers read.
func (h *harness) operatorCache() client.Reader {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cached
}

// waitCached waits until the running operator's cache holds the object of key in a state
// seen accepts. The API server having an object does not mean the controllers see it: a test
// that changes an object and then provokes a decision on it waits here first.
func (h *harness) waitCached(key client.ObjectKey, obj client.Object, seen func() bool, msg string) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		return h.operatorCache().Get(context.Background(), key, obj) == nil && seen()
	}, waitFor, tick, msg)
}

// createRuntime creates the ClusterRuntime with validation disabled unless mutate says otherwise.
func (h *harness) createRuntime(mutate func(cr *aicrv1alpha1.ClusterRuntime)) string {
	h.t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: aicrv1alpha1.ClusterRuntimeSpec{
			Intent: "training", Platform: "kubeflow",
			Placement: aicrv1alpha1.Placement{
				System:      aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "system"}},
				Accelerated: aicrv1alpha1.NodeGroup{NodeSelector: map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu"}},
			},
			Validation: aicrv1alpha1.ValidationPolicy{Deployment: aicrv1alpha1.ValidationDisabled},
		},
	}
	if mutate != nil {
		mutate(cr)
	}
	require.NoError(h.t, k8s.Create(context.Background(), cr))
	return string(cr.UID)
}

// setCandidate plays the resolver: candidatePlanDigest and Resolved, with its own field manager.
func (h *harness) setCandidate(digest string, resolved metav1.Condition) {
	h.t.Helper()
	if resolved.Status == "" {
		resolved = metav1.Condition{Status: metav1.ConditionTrue, Reason: "Resolved", Message: "plan " + digest + " resolved"}
	}
	resolved.Type = aicrv1alpha1.ConditionResolved
	status := map[string]any{"conditions": []any{map[string]any{
		"type": resolved.Type, "status": string(resolved.Status), "reason": resolved.Reason, "message": resolved.Message,
		"lastTransitionTime": epoch.Format(time.RFC3339),
	}}}
	if digest != "" {
		status["candidatePlanDigest"] = digest
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": "ClusterRuntime",
		"metadata": map[string]any{"name": aicrv1alpha1.ClusterRuntimeName}, "status": status,
	}}
	require.NoError(h.t, k8s.Status().Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("aicr-resolver"), client.ForceOwnership))
}

// runtime reads the live ClusterRuntime.
func (h *harness) runtime() *aicrv1alpha1.ClusterRuntime {
	h.t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(h.t, k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	return cr
}

// rollouts lists the live rollouts.
func (h *harness) rollouts() []aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	var list aicrv1alpha1.RuntimeRolloutList
	require.NoError(h.t, k8s.List(context.Background(), &list))
	return list.Items
}

// rollout reads one rollout.
func (h *harness) rollout(name string) *aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{}
	require.NoError(h.t, k8s.Get(context.Background(), client.ObjectKey{Name: name}, ro))
	return ro
}

// waitRollout waits until exactly n rollouts exist and returns the one not returned before.
func (h *harness) waitRollout(n int) *aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	var ro *aicrv1alpha1.RuntimeRollout
	require.Eventually(h.t, func() bool {
		items := h.rollouts()
		if len(items) != n {
			return false
		}
		for i := range items {
			if !h.seen[items[i].Name] {
				ro = &items[i]
			}
		}
		return ro != nil
	}, waitFor, tick, "want %d rollouts", n)
	h.seen[ro.Name] = true
	return ro
}

// waitOutcome waits for the rollout's outcome label.
func (h *harness) waitOutcome(name string, want aicrv1alpha1.Phase) *aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	var ro *aicrv1alpha1.RuntimeRollout
	require.Eventually(h.t, func() bool {
		ro = h.rollout(name)
		return ro.Labels[aicrv1alpha1.LabelOutcome] != "" && ro.Status.Phase == want
	}, waitFor, tick, "rollout %s never reached %s", name, want)
	require.Equal(h.t, string(want), ro.Labels[aicrv1alpha1.LabelOutcome])
	return ro
}

// waitPhase waits for the rollout's status phase.
func (h *harness) waitPhase(name string, want aicrv1alpha1.Phase) *aicrv1alpha1.RuntimeRollout {
	h.t.Helper()
	var ro *aicrv1alpha1.RuntimeRollout
	require.Eventually(h.t, func() bool {
		ro = h.rollout(name)
		return ro.Status.Phase == want
	}, waitFor, tick, "rollout %s never reached phase %s", name, want)
	return ro
}

// waitReleaseState waits until the rollout's status records the release in state want.
func (h *harness) waitReleaseState(name, release string, want aicrv1alpha1.ReleaseState) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		for _, r := range h.rollout(name).Status.Releases {
			if r.Release == release {
				return r.State == want
			}
		}
		return false
	}, waitFor, tick, "rollout %s never recorded %s as %s", name, release, want)
}

// waitTarget waits until the runtime's status records digest as its target: the status write
// that records it carries the conditions derived from it.
func (h *harness) waitTarget(digest string) {
	h.t.Helper()
	require.Eventually(h.t, func() bool { return h.runtime().Status.TargetPlanDigest == digest }, waitFor, tick,
		"the runtime never recorded target %s", digest)
}

// waitCondition waits until the runtime's condition has status, reason and message.
func (h *harness) waitCondition(typ string, status metav1.ConditionStatus, reason, message string) {
	h.t.Helper()
	var got *metav1.Condition
	require.Eventually(h.t, func() bool {
		cr := h.runtime()
		got = findCondition(cr.Status.Conditions, typ)
		return got != nil && got.Status == status && got.Reason == reason && (message == "" || got.Message == message)
	}, waitFor, tick, "condition %s never became %s/%s %q (last: %+v; all: %+v)", typ, status, reason, message, got, h.runtime().Status.Conditions)
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// liveReleases returns the engine objects of the engine the test rolls out on by release ID.
func (h *harness) liveReleases() map[string]ports.ReleaseStatus { return h.world.live(h.t) }

func releaseRef(id string) ports.ReleaseRef { return ports.ReleaseRef{ID: id} }
