package upgrade_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/memengine"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	waitFor = 60 * time.Second
	tick    = 20 * time.Millisecond
)

// release is one AICR release: aicr.version and the image digest of the chart.
type release struct {
	version, digest string
}

// image is the AICR image the chart pins for the release.
func (r release) image() string { return aicrRepo + ":v" + r.version + "@" + r.digest }

var (
	aicr11 = release{"1.1.0", "sha256:1111111111111111111111111111111111111111111111111111111111111111"}
	aicr12 = release{"1.2.0", "sha256:1212121212121212121212121212121212121212121212121212121212121212"}
)

// operatorRun is one running operator of a release with the simulated AICR of that release.
type operatorRun struct {
	jobs, agent *jobexec.Executor
	stop        func()

	mu sync.Mutex
	// recipeArgs and inherited are the arguments and the inherit.yaml input of its recipe Jobs.
	recipeArgs [][]string
	inherited  []string
}

// TestUpgrade_AICR11To12 moves AICR 1.1 -> 1.2 as an operation (RES-1, RES-5):
// the chart is upgraded to 1.2 and the operator restarted; the runtime resolves again with the
// new release under new Job names (nothing of 1.1 is reused), its recipe Job inherits from the
// active plan's verified recipe (recipe --inherit-from), upgrade-check assesses the transition,
// and the rollout from the 1.1 plan to the 1.2 plan runs once approved.
func TestUpgrade_AICR11To12(t *testing.T) {
	ctx := context.Background()
	engine := memengine.New(clock.New(), true)

	require.NoError(t, installChart(ctx, aicr11))
	op11 := startOperator(t, aicr11, engine)
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}, Spec: jobexec.FixtureRuntimeSpec()}
	require.NoError(t, k8s.Create(ctx, cr))
	installed := waitRollout(t, func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Spec.FromPlanDigest == "" && ro.Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded)
	})
	active := installed.Spec.ToPlanDigest
	require.Eventually(t, func() bool { return liveRuntime(t).Status.ActivePlanDigest == active }, waitFor, tick, "1.1 plan active")
	op11.stop()
	ran11 := op11.executed()
	assert.Empty(t, op11.inheritedInputs(), "an install inherits nothing")

	require.NoError(t, installChart(ctx, aicr12))
	waitImageAdmitted(t, aicr12.image())
	op12 := startOperator(t, aicr12, engine)
	defer op12.stop()

	upgrade := waitRollout(t, func(ro *aicrv1alpha1.RuntimeRollout) bool { return ro.Spec.FromPlanDigest == active })
	assert.NotEqual(t, active, upgrade.Spec.ToPlanDigest, "AICR 1.2 renders a new plan")
	plan, stall, err := planstore.NewReader(k8s, operatorNS, sealtest.New()).Document(ctx, upgrade.Spec.ToPlanDigest, string(liveRuntime(t).UID))
	require.NoError(t, err)
	require.Nil(t, stall)
	assert.Equal(t, aicr12.version, plan.AICRVersion, "the new plan is AICR 1.2's")
	assert.Equal(t, aicr12.image(), plan.AICRImage)
	assert.NotEmpty(t, upgrade.Spec.AssessmentDigest, "upgrade-check assessed the transition")
	assessment, err := configdoc.AssessmentConfigMapName(active, upgrade.Spec.ToPlanDigest, upgrade.Spec.AssessmentDigest)
	require.NoError(t, err)
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: operatorNS, Name: assessment}, &corev1.ConfigMap{}),
		"the assessment is recorded")
	require.True(t, upgrade.Spec.ApprovalRequired, "the GPU Operator's upgrade pauses before the DRA driver's step")
	approve(t, upgrade)
	waitRollout(t, func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Name == upgrade.Name && ro.Status.Phase == aicrv1alpha1.PhaseAwaitingAcknowledgement
	})
	acknowledge(t, upgrade, "nvidia-dra-driver-gpu")
	waitRollout(t, func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Name == upgrade.Name && ro.Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded)
	})
	require.Eventually(t, func() bool { return liveRuntime(t).Status.ActivePlanDigest == upgrade.Spec.ToPlanDigest },
		waitFor, tick, "1.2 plan active")

	ran12 := op12.executed()
	for _, kind := range []string{"snapshot", "recipe", "upgrade-check", "bundle"} {
		assert.True(t, slices.ContainsFunc(ran12, func(n string) bool { return strings.HasPrefix(n, "aicr-"+kind+"-") }),
			"AICR 1.2 ran its own %s Job: %v", kind, ran12)
	}
	for _, name := range ran12 {
		assert.NotContains(t, ran11, name, "no Job name of AICR 1.1 is reused")
	}
	inherited := op12.inheritedInputs()
	require.Len(t, inherited, 1, "one recipe Job inherits")
	assert.Contains(t, inherited[0], `"version":"1.1.0"`, "it inherits the active 1.1 plan's recipe, as the plan recorded it")
	assert.Contains(t, op12.recipeArgList()[0], "--inherit-from")
	assert.Empty(t, op11.jobs.Violations())
	assert.Empty(t, op12.jobs.Violations())
	assert.Empty(t, append(op11.agent.Violations(), op12.agent.Violations()...), "the snapshot contract is kept")
}

// startOperator runs the resolver and the rollout controllers of release rel as the operator's
// ServiceAccount, and the simulated AICR of rel in the Job and discovery namespaces.
func startOperator(t *testing.T, rel release, engine *memengine.Engine) *operatorRun {
	t.Helper()
	// The recorded 1.1 render, as rel renders it: its version in bundle-info.yaml, recipe.yaml and
	// the generated wrapper charts, and, from 1.2 on, a newer GPU driver for gpu-operator (a
	// release that renders the same releases yields the same plan, and there is nothing to roll out).
	fixture, err := jobexec.BundleFixture(rel.version, fixtureDir, func(files map[string][]byte) {
		for f, data := range files {
			s := strings.ReplaceAll(string(data), "aicr.run/generated-by: 1.1.0", "aicr.run/generated-by: "+rel.version)
			if f == "bundle-info.yaml" || f == "recipe.yaml" {
				s = strings.ReplaceAll(s, "version: 1.1.0\n", "version: "+rel.version+"\n")
			}
			files[f] = []byte(s)
		}
		if rel != aicr11 {
			files["009-gpu-operator/cluster-values.yaml"] = []byte("driver:\n  version: 580.95.05\n")
		}
	})
	require.NoError(t, err)
	op := &operatorRun{}
	behavior := op.record(fixture)
	op.jobs, err = jobexec.New(controlPlane.Config, scheme, jobsNS, rel.image(), behavior)
	require.NoError(t, err)
	op.agent, err = jobexec.New(controlPlane.Config, scheme, discoveryNS, rel.image(), behavior)
	require.NoError(t, err)
	op.agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)

	mgr, err := operatorManager()
	require.NoError(t, err)
	clk := clock.New()
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobsNS, OperatorNamespace: operatorNS, Image: rel.image(), CopierImage: jobexec.CopierImage},
		mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(t, err)
	agent, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: discoveryNS, OperatorNamespace: operatorNS, Image: rel.image(),
		ServiceAccount: jobs.AgentServiceAccount, Agent: true}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(t, err)
	res, err := resolver.New(mgr.GetClient(), mgr.GetAPIReader(), runner, agent, aicr.Reader{}, nil, clk,
		mgr.GetEventRecorderFor(resolver.FieldManager), resolver.Config{
			OperatorNamespace: operatorNS, JobNamespace: jobsNS, DiscoveryNamespace: discoveryNS,
			Image: rel.image(), AICRVersion: rel.version, AllowedNamespaces: components,
			AdmissionPolicies: shared.ChartAdmissionPolicies, Sealer: sealtest.New(),
		})
	require.NoError(t, err)
	require.NoError(t, res.SetupWithManager(mgr))
	require.NoError(t, controllers.RolloutControllers(mgr, controllers.Setup{
		Ports: domain.Ports{Engine: engine, Jobs: runner, Clock: clk, Sealer: sealtest.New()},
		Options: shared.Options{OperatorNamespace: operatorNS, RolloutWindow: time.Hour, RequeueCap: time.Second,
			AdmissionPolicies: shared.ChartAdmissionPolicies},
	}))
	runCtx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	for _, run := range []func(context.Context) error{op.jobs.Run, op.agent.Run, mgr.Start} {
		running.Add(1)
		go func() {
			defer running.Done()
			if err := run(runCtx); err != nil {
				fmt.Println("operator", rel.version, err)
			}
		}()
	}
	var once sync.Once
	op.stop = func() { once.Do(func() { cancel(); running.Wait() }) }
	return op
}

// operatorManager is a manager acting as the operator's ServiceAccount with the operator's cache
// scopes (adapters/kube/manager: ConfigMaps of the operator namespace with a role label, the
// operator's Jobs in the Job and discovery namespaces, Secrets uncached); controller names are not
// checked for uniqueness, since one process runs the operator of each release in turn.
func operatorManager() (ctrl.Manager, error) {
	roleExists, err := labels.NewRequirement(aicrv1alpha1.LabelRole, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	managed := labels.SelectorFromSet(labels.Set{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue})
	return ctrl.NewManager(operatorConfig(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{operatorNS: {}}, Label: labels.NewSelector().Add(*roleExists)},
			&batchv1.Job{}:      {Namespaces: map[string]cache.Config{jobsNS: {}, discoveryNS: {}}, Label: managed},
		}},
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
}

// record plays fixture and records what every recipe Job was given; upgrade-check rates the
// one changed component safe.
func (op *operatorRun) record(fixture jobexec.Fixture) jobexec.Behavior {
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		switch ports.JobKind(job.Labels[jobs.KindLabel]) {
		case ports.JobRecipe:
			op.mu.Lock()
			op.recipeArgs = append(op.recipeArgs, jobexec.AICRArgs(job))
			if inherit, ok := in.Data["inherit.yaml"]; ok {
				op.inherited = append(op.inherited, inherit)
			}
			op.mu.Unlock()
		case ports.JobUpgradeCheck:
			return fixture.SafeUpgradeCheck()
		case ports.JobSnapshot, ports.JobBundle, ports.JobValidate:
		}
		return fixture.Behavior()(job, in)
	}
}

// executed returns the names of the Jobs the run's simulated AICR played.
func (op *operatorRun) executed() []string {
	return append(op.agent.Executed(), op.jobs.Executed()...)
}

func (op *operatorRun) inheritedInputs() []string {
	op.mu.Lock()
	defer op.mu.Unlock()
	return slices.Clone(op.inherited)
}

func (op *operatorRun) recipeArgList() [][]string {
	op.mu.Lock()
	defer op.mu.Unlock()
	return slices.Clone(op.recipeArgs)
}

// waitImageAdmitted waits until the admission policies, updated by the chart upgrade, admit
// a Job of image in the Job namespace from the operator (policies are read asynchronously).
func waitImageAdmitted(t *testing.T, image string) {
	t.Helper()
	op := as(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
	require.Eventually(t, func() bool {
		j := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: jobsNS},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				ServiceAccountName: jobs.ServiceAccount, RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: jobs.ContainerName, Image: image}},
			}}},
		}
		return op.Create(context.Background(), j, client.DryRunAll) == nil
	}, waitFor, tick, "the upgraded policies admit %s", image)
}

// approve approves the rollout until its deadline as the chart's approver.
func approve(t *testing.T, ro *aicrv1alpha1.RuntimeRollout) {
	t.Helper()
	expires := ro.Spec.Deadline.UTC().Format(time.RFC3339)
	patch := `{"spec":{"approval":{"approvedBy":"` + approverUser + `","expiresAt":"` + expires + `","reason":"AICR 1.2"}}}`
	require.NoError(t, as(approverUser).Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch))))
}

// acknowledge acknowledges, as the chart's approver, what release's step of ro waits for.
func acknowledge(t *testing.T, ro *aicrv1alpha1.RuntimeRollout, release string) {
	t.Helper()
	patch := `{"spec":{"approval":{"acknowledgements":[{"release":"` + release + `","acknowledgedBy":"` + approverUser +
		`","acknowledgedAt":"` + time.Now().UTC().Format(time.RFC3339) + `"}]}}}`
	require.NoError(t, as(approverUser).Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch))))
}

// waitRollout waits for a rollout that ok accepts.
func waitRollout(t *testing.T, ok func(*aicrv1alpha1.RuntimeRollout) bool) *aicrv1alpha1.RuntimeRollout {
	t.Helper()
	var found *aicrv1alpha1.RuntimeRollout
	require.Eventually(t, func() bool {
		var list aicrv1alpha1.RuntimeRolloutList
		if err := k8s.List(context.Background(), &list); err != nil {
			return false
		}
		for i := range list.Items {
			if ok(&list.Items[i]) {
				found = &list.Items[i]
				return true
			}
		}
		return false
	}, waitFor, tick, "rollout")
	return found
}

// liveRuntime reads the ClusterRuntime.
func liveRuntime(t *testing.T) *aicrv1alpha1.ClusterRuntime {
	t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	return cr
}
