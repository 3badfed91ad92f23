package trust_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/memengine"
)

const (
	waitFor = 30 * time.Second
	tick    = 20 * time.Millisecond
	// heldPrefix names Jobs the simulated AICR holds running, for attacks on a live Job.
	heldPrefix = "attack-"
	// overrideValue is the driver version the baseline's override sets.
	overrideValue = "580.95.05"
)

// world is the running operator and what it acts on, shared by the suite's tests, which run
// one after another (each attack leaves the world as it found it).
type world struct {
	engine *memengine.Engine
	exec   *jobexec.Executor
	// agent plays the snapshot agent in the discovery namespace.
	agent *jobexec.Executor
	// validation plays aicr validate in the validation namespace.
	validation *jobexec.Executor
	// active is the plan the initial install rolled out; target the plan the override made.
	active, target string
	// awaiting is the rollout toward target that waits for an approver.
	awaiting string
}

var (
	once        sync.Once
	sharedWorld *world
	startErr    error
	// stopOperator stops the operator and the simulated AICR (TestMain calls it last).
	stopOperator = func() {}
)

// baseline starts the operator once and brings the world to its baseline: the initial install
// of the fixture rolled out (the active plan), then an override changed gpu-operator's values,
// which AICR rates safe, and the rollout toward the new plan waits for an approver.
func baseline(t *testing.T) *world {
	t.Helper()
	once.Do(func() { sharedWorld, startErr = start() })
	require.NoError(t, startErr, "operator and baseline")
	return sharedWorld
}

// start runs the operator as its ServiceAccount with every admission policy checked, the
// simulated AICR and the in-memory engine, then reaches the baseline.
func start() (*world, error) {
	f, err := jobexec.BundleFixture(aicrVersion, fixtureDir, nil)
	if err != nil {
		return nil, err
	}
	overridden, err := jobexec.BundleFixture(aicrVersion, fixtureDir, func(files map[string][]byte) {
		files["009-gpu-operator/cluster-values.yaml"] = []byte("driver:\n  version: " + overrideValue + "\n")
	})
	if err != nil {
		return nil, err
	}
	w := &world{}
	if w.exec, err = jobexec.New(controlPlane.Config, scheme, jobsNS, aicrImage, playAICR(f, overridden)); err != nil {
		return nil, err
	}
	w.exec.ExpectNodeSelector(systemNodes())
	if w.agent, err = jobexec.New(controlPlane.Config, scheme, discoveryNS, aicrImage, f.Behavior()); err != nil {
		return nil, err
	}
	w.agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)
	if w.validation, err = jobexec.New(controlPlane.Config, scheme, validationNS, aicrImage, f.Behavior()); err != nil {
		return nil, err
	}
	w.validation.ExpectServiceAccount(validateSA)
	if err = runOperator(w); err != nil {
		return nil, err
	}
	return w, w.reachBaseline(context.Background())
}

// playAICR plays AICR's Jobs of the transition (jobexec.TransitionBehavior) and holds the Jobs
// named heldPrefix* running.
func playAICR(f, overridden jobexec.Fixture) jobexec.Behavior {
	transition := jobexec.TransitionBehavior(f, overridden)
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if strings.HasPrefix(job.Name, heldPrefix) {
			return jobexec.Result{Hold: true}
		}
		return transition(job, in)
	}
}

// runOperator starts the resolver and the rollout controllers in one manager built as the
// operator binary builds it, acting as the operator's ServiceAccount.
func runOperator(w *world) error {
	mgr, err := manager.New(operatorConfig(), manager.Options{
		OperatorNamespace: operatorNS, JobNamespaces: []string{jobsNS, discoveryNS},
		MetricsBindAddress: "0", HealthProbeBindAddress: "0",
	})
	if err != nil {
		return err
	}
	digests, err := chartrender.AdmissionDigests(rendered, operatorNS)
	if err != nil {
		return err
	}
	projectDigest, err := chartrender.EngineProjectDigest(rendered, operatorNS)
	if err != nil {
		return err
	}
	clk := clock.New()
	runner, err := jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: jobsNS, OperatorNamespace: operatorNS, Image: aicrImage, CopierImage: jobexec.CopierImage},
		mgr.GetClient(), mgr.GetAPIReader())
	if err != nil {
		return err
	}
	agent, err := snapshotAgent(mgr.GetClient(), mgr.GetAPIReader())
	if err != nil {
		return err
	}
	res, err := resolver.New(mgr.GetClient(), mgr.GetAPIReader(), runner, agent, aicr.Reader{}, nil, clk,
		mgr.GetEventRecorderFor(resolver.FieldManager), resolver.Config{
			OperatorNamespace: operatorNS, JobNamespace: jobsNS, DiscoveryNamespace: discoveryNS, Image: aicrImage, AICRVersion: aicrVersion,
			AllowedNamespaces: components, AdmissionPolicies: shared.ChartAdmissionPolicies, AdmissionDigests: digests,
			CRDDigests: aicrv1alpha1.CRDSchemaDigests, Sealer: operatorSeals(),
		})
	if err != nil {
		return err
	}
	if err = res.SetupWithManager(mgr); err != nil {
		return err
	}
	w.engine = memengine.New(clk, true)
	if err = controllers.RolloutControllers(mgr, controllers.Setup{
		Ports: domain.Ports{Engine: w.engine, Jobs: runner, Clock: clk, Sealer: operatorSeals()},
		Options: shared.Options{OperatorNamespace: operatorNS, RolloutWindow: time.Hour, RequeueCap: time.Second,
			AdmissionPolicies: shared.ChartAdmissionPolicies, AdmissionDigests: digests, CRDDigests: aicrv1alpha1.CRDSchemaDigests,
			EngineProject: argocd.ProjectGuard(mgr.GetAPIReader(), "argocd", "aicr", projectDigest)},
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Add(4)
	go func() { defer running.Done(); _ = w.exec.Run(ctx) }()
	go func() { defer running.Done(); _ = w.agent.Run(ctx) }()
	go func() { defer running.Done(); _ = w.validation.Run(ctx) }()
	go func() {
		defer running.Done()
		if err := mgr.Start(ctx); err != nil {
			fmt.Println("operator manager:", err)
		}
	}()
	stopOperator = func() { cancel(); running.Wait() }
	return nil
}

// reachBaseline creates the runtime, waits for the initial install to succeed, sets the
// override and waits for the rollout that needs an approver.
func (w *world) reachBaseline(ctx context.Context) error {
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}, Spec: jobexec.FixtureRuntimeSpec()}
	if err := as(editorUser).Create(ctx, cr); err != nil {
		return fmt.Errorf("create the runtime: %w", err)
	}
	installed, err := waitRollout(ctx, func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Spec.FromPlanDigest == "" && ro.Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded)
	})
	if err != nil {
		return fmt.Errorf("initial install: %w", err)
	}
	w.active = installed.Spec.ToPlanDigest
	if err = setOverride(ctx, overrideValue); err != nil {
		return err
	}
	awaiting, err := waitRollout(ctx, func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Spec.FromPlanDigest == w.active && ro.Status.Phase == aicrv1alpha1.PhaseAwaitingApproval
	})
	if err != nil {
		cr := &aicrv1alpha1.ClusterRuntime{}
		_ = k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr)
		var list aicrv1alpha1.RuntimeRolloutList
		_ = k8s.List(ctx, &list)
		return fmt.Errorf("rollout awaiting approval: %w (runtime status %+v, %d rollouts)", err, cr.Status, len(list.Items))
	}
	w.target, w.awaiting = awaiting.Spec.ToPlanDigest, awaiting.Name
	return nil
}

// setOverride sets gpu-operator's driver.version override as the runtime editor.
func setOverride(ctx context.Context, value string) error {
	patch := fmt.Sprintf(`{"spec":{"overrides":[{"component":"gpu-operator","path":"driver.version","value":%q}]}}`, value)
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}}
	if err := as(editorUser).Patch(ctx, cr, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
		return fmt.Errorf("set the override: %w", err)
	}
	return nil
}

// waitRollout waits for a rollout that ok accepts.
func waitRollout(ctx context.Context, ok func(*aicrv1alpha1.RuntimeRollout) bool) (*aicrv1alpha1.RuntimeRollout, error) {
	ctx, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	for {
		var list aicrv1alpha1.RuntimeRolloutList
		if err := k8s.List(ctx, &list); err == nil {
			for i := range list.Items {
				if ok(&list.Items[i]) {
					return &list.Items[i], nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no such rollout within %s: %w", waitFor, ctx.Err())
		case <-time.After(tick):
		}
	}
}

// liveRuntime reads the ClusterRuntime.
func liveRuntime(t *testing.T) *aicrv1alpha1.ClusterRuntime {
	t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	return cr
}

// liveRollout reads a rollout.
func liveRollout(t *testing.T, name string) *aicrv1alpha1.RuntimeRollout {
	t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Name: name}, ro))
	return ro
}

// waitCondition waits until the runtime's condition typ has reason and a message containing contains.
func waitCondition(t *testing.T, typ, reason, contains string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	require.Eventually(t, func() bool {
		c := meta.FindStatusCondition(liveRuntime(t).Status.Conditions, typ)
		if c == nil {
			return false
		}
		got = *c
		return c.Reason == reason && strings.Contains(c.Message, contains)
	}, waitFor, tick, "runtime condition %s reason %s containing %q", typ, reason, contains)
	return got
}

// waitRolloutStalled waits until the rollout's Stalled condition has reason.
func waitRolloutStalled(t *testing.T, name, reason string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c := meta.FindStatusCondition(liveRollout(t, name).Status.Conditions, "Stalled")
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == reason
	}, waitFor, tick, "rollout %s stalled %s", name, reason)
}

// noEngineWrite asserts, when the test ends, that the engine saw no write during it.
func (w *world) noEngineWrite(t *testing.T) {
	t.Helper()
	before := w.engine.WriteCount()
	t.Cleanup(func() {
		if after := w.engine.WriteCount(); after != before {
			t.Errorf("the engine saw %d writes during the attack", after-before)
		}
	})
}

// refused asserts that err is admission's refusal carrying want.
func refused(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err, "the attack must be refused")
	require.Truef(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "refused by the API server: %v", err)
	require.Contains(t, err.Error(), want)
}
