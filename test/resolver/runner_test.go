package resolver_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestRunner_CredentialsSecretOwnedByJob: a JobSpec with credentials gets a
// per-run docker config Secret owned by the Job and mounted for AICR (RES-8);
// Start is idempotent; Delete removes the Job with its run-scoped objects.
func TestRunner_CredentialsSecretOwnedByJob(t *testing.T) {
	ctx := context.Background()
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, k8s, k8s)
	require.NoError(t, err)
	exec, err := jobexec.New(restConfig, scheme, jobNS, image, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{Version: "1.1.0", Data: map[string]string{jobs.OutputKey: "kind: RecipeResult\n"}}
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	spec := ports.JobSpec{
		Name: "aicr-recipe-credentials", Kind: ports.JobRecipe, Image: image,
		Args:        []string{"--log-json", "recipe", "-o", runner.OutputRef("aicr-recipe-credentials")},
		Credentials: []byte(`{"auths":{"registry.example.com":{"auth":"dTpw"}}}`),
		Owner:       ports.ReleaseOwner{RuntimeUID: "uid-1"},
	}
	ref, err := runner.Start(ctx, spec)
	require.NoError(t, err)
	_, err = runner.Start(ctx, spec)
	require.NoError(t, err, "idempotent")
	require.Eventually(t, func() bool {
		st, err := runner.Status(ctx, ref)
		return err == nil && st.State == ports.JobSucceeded && st.AICRVersion == "1.1.0"
	}, wait, tick)
	assert.Empty(t, exec.Violations())

	secret := &corev1.Secret{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: jobs.RegistryName(spec.Name)}, secret))
	assert.Equal(t, corev1.SecretTypeDockerConfigJson, secret.Type)
	assert.Equal(t, spec.Credentials, secret.Data[corev1.DockerConfigJsonKey])
	job := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: spec.Name}, job))
	assert.Equal(t, job.UID, secret.OwnerReferences[0].UID)
	assert.Contains(t, job.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "DOCKER_CONFIG", Value: jobs.RegistryDir})

	require.NoError(t, runner.Delete(ctx, ref))
	require.Eventually(t, func() bool {
		_, err := runner.Status(ctx, ref)
		return err != nil && secretGone(ctx, secret)
	}, wait, tick, "foreground deletion removes the job and its secret")
}

// deleteJob deletes the Job of ref in the foreground and waits until it is gone. Register
// it after the cleanup that stops the executor, so it runs first: envtest has no garbage
// collector, only the executor removes the foregroundDeletion finalizer, and a Job left
// terminating would be found by the next test of the package.
func deleteJob(t *testing.T, runner *jobs.Runner, ref ports.JobRef) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, runner.Delete(ctx, ref))
	require.Eventually(t, func() bool {
		_, err := runner.Status(ctx, ref)
		return errors.Is(err, ports.ErrJobNotFound)
	}, wait, tick, "job %s deleted", ref.Name)
}

func secretGone(ctx context.Context, s *corev1.Secret) bool {
	return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(s), &corev1.Secret{}))
}

// TestResolve_StalledJobRetainedAndEvents: a stalled stage's failed Job keeps
// seven days (RES-7) and every stage records started, succeeded and failed
// Events.
func TestResolve_StalledJobRetainedAndEvents(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	start(t, options{version: "1.1.0", allowed: allowed,
		behavior: failing(f, ports.JobRecipe, 2, failed("INVALID_REQUEST", "INVALID_REQUEST", 2))})
	cr := createRuntime(t, runtimeSpec())
	resolved(t, string(domain.StallAICRInvalidRequest))
	ctx := context.Background()
	require.Eventually(t, func() bool {
		list := &batchv1.JobList{}
		if k8s.List(ctx, list, client.InNamespace(jobNS), client.MatchingLabels{jobs.KindLabel: string(ports.JobRecipe)}) != nil || len(list.Items) != 1 {
			return false
		}
		ttl := list.Items[0].Spec.TTLSecondsAfterFinished
		return ttl != nil && *ttl == jobs.TTLStalled
	}, wait, tick, "the failed recipe job is retained for seven days")
	require.Eventually(t, func() bool {
		reasons := eventReasons(ctx, cr)
		return reasons[domain.EventResolveStageStarted.String()] >= 2 && reasons[domain.EventResolveStageSucceeded.String()] >= 1 &&
			reasons[domain.EventResolveStageFailed.String()] == 1
	}, wait, tick, "events %v", eventReasons(ctx, cr))
}

func eventReasons(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) map[string]int {
	list := &corev1.EventList{}
	out := map[string]int{}
	if k8s.List(ctx, list) != nil {
		return out
	}
	for _, e := range list.Items {
		if e.InvolvedObject.UID == cr.UID {
			out[e.Reason] += int(e.Count)
		}
	}
	return out
}

// TestResolve_UpgradeCheckAgainstActivePlan: with an active plan that has a
// recipe, the resolver runs upgrade-check from it, keeps the report (role
// assessment) and records it in the new plan (RES-1, RES-7).
func TestResolve_UpgradeCheckAgainstActivePlan(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	createRuntime(t, runtimeSpec())
	_, live := resolved(t, domain.ReasonResolved)
	first := live.Status.CandidatePlanDigest

	applyActive(t, first)
	ctx := context.Background()
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live))
	live.Spec.Overrides = []aicrv1alpha1.Override{{Component: "gpu-operator", Path: "driver.version", Value: jsonValue(`"580.2"`)}}
	require.NoError(t, k8s.Update(ctx, live))
	gen := live.Generation
	require.Eventually(t, func() bool { return countJobs(h, "upgrade-check") == 1 && countJobs(h, "bundle") == 2 }, wait, tick)
	// The resolver writes the assessment with the plan and only then applies Resolved with
	// the candidate: wait for the outcome of the new generation (Resolved of the previous one
	// is still there) before comparing them.
	_, live = resolvedFor(t, domain.ReasonResolved, gen)
	kept := &corev1.ConfigMapList{}
	require.Eventually(t, func() bool {
		return k8s.List(ctx, kept, client.InNamespace(operatorNS),
			client.MatchingLabels{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment}) == nil && len(kept.Items) == 1
	}, wait, tick)
	assert.Empty(t, kept.Items[0].OwnerReferences)
	report, err := configdoc.DecodeReport([]byte(kept.Items[0].Data[configdoc.ReportKey]))
	require.NoError(t, err)
	assert.Equal(t, 0, report.Summary.Failing)
	assert.Equal(t, live.Status.CandidatePlanDigest, kept.Items[0].Annotations[aicrv1alpha1.AnnotationPlanDigest])
	assert.Equal(t, first, kept.Items[0].Annotations[aicrv1alpha1.AnnotationFromPlanDigest])
}

// TestRunner_ValidationIdentity: deployment validation runs aicr validate from the pinned
// AICR image as its own identity (RES-8, CH-4), reads its recipe from its inputs, plays AICR's
// run (agent, checks, clean-up) as that identity and writes its CTRF report where Output reads
// it (RO-10).
func TestRunner_ValidationIdentity(t *testing.T) {
	ctx := context.Background()
	v := startValidation(t, nil)
	runner, exec, f, pinned := v.runner, v.exec, v.fixture, v.pinned
	spec := v.spec("aicr-validate-identity")
	ref, err := runner.Start(ctx, spec)
	require.NoError(t, err)
	t.Cleanup(func() { deleteJob(t, runner, ref) })
	require.Eventually(t, func() bool {
		st, statusErr := runner.Status(ctx, ref)
		return statusErr == nil && st.State == ports.JobSucceeded
	}, wait, tick)
	assert.Empty(t, exec.Violations())
	assert.NotEmpty(t, exec.ValidateRunObjects(), "aicr validate created its run's objects")
	job := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: spec.Name}, job))
	assert.Equal(t, validateIdentity, job.Spec.Template.Spec.ServiceAccountName)
	assert.Equal(t, pinned, job.Spec.Template.Spec.Containers[0].Image)
	out, err := runner.Output(ctx, ref)
	require.NoError(t, err)
	report, err := fs.ReadFile(out, ports.JobArtifactFile)
	require.NoError(t, err)
	assert.Equal(t, f.Validation, report)

	spec.Name, spec.Image = "aicr-validate-other-image", image
	_, err = runner.Start(ctx, spec)
	require.ErrorIs(t, err, jobs.ErrImageNotPinned)
}

// TestRunner_ValidationAgentFailures: when aicr validate's snapshot agent Job fails, or no node
// takes its Pod, the validate Job fails as AICR's does (INTERNAL, exit 8; TIMEOUT, exit 5),
// having cleaned up what its run created, and the operator reads the failure as that AICR error
// naming the agent Job.
func TestRunner_ValidationAgentFailures(t *testing.T) {
	ctx := context.Background()
	outcomes := map[string]jobexec.AgentOutcome{"aicr-validate-agent-fails": jobexec.AgentFails, "aicr-validate-agent-hangs": jobexec.AgentHangs}
	v := startValidation(t, func(job *batchv1.Job, res jobexec.Result) jobexec.Result {
		res.Agent = outcomes[job.Name]
		return res
	})
	runner, exec := v.runner, v.exec

	want := map[jobexec.AgentOutcome]struct {
		code   int
		reason domain.StallReason
	}{jobexec.AgentFails: {8, domain.StallAICRInternal}, jobexec.AgentHangs: {5, domain.StallAICRTimeout}}
	for name, outcome := range outcomes {
		ref, err := runner.Start(ctx, v.spec(name))
		require.NoError(t, err)
		t.Cleanup(func() { deleteJob(t, runner, ref) })
		var st ports.JobStatus
		require.Eventually(t, func() bool {
			st, err = runner.Status(ctx, ref)
			return err == nil && st.State == ports.JobFailed
		}, wait, tick, outcome)
		assert.Equal(t, want[outcome].code, st.ExitCode, outcome)
		exit := domain.ClassifyAICRExit(st.ExitCode, st.FailureLog)
		require.NotNil(t, exit.Stall, outcome)
		assert.Equal(t, want[outcome].reason, exit.Stall.Reason(), outcome)
		assert.Contains(t, exit.Stall.Message(), "snapshot agent Job aicr-validate-", outcome)
	}
	assert.Empty(t, exec.Violations(), "an agent that does not complete is AICR's failure, not a refused write")
	leftovers := &batchv1.JobList{}
	require.NoError(t, k8s.List(ctx, leftovers, client.InNamespace(jobNS)))
	for _, j := range leftovers.Items {
		assert.False(t, strings.HasPrefix(j.Name, "aicr-validate-") && j.Labels["app.kubernetes.io/component"] == "snapshot-agent",
			"validate deleted its agent Job %s", j.Name)
	}
}

// validateIdentity is the ServiceAccount the validation cases run aicr validate as.
const validateIdentity = "aicr-operator-validate"

// validation is a Job runner of validate Jobs from a pinned AICR image, run as validateIdentity,
// and the simulated AICR that plays them until the test ends.
type validation struct {
	runner  *jobs.Runner
	exec    *jobexec.Executor
	fixture jobexec.Fixture
	pinned  string
}

// startValidation grants validateIdentity what aicr validate needs and starts the simulated
// AICR playing the v1 fixture, each Result changed by adjust when it is given.
func startValidation(t *testing.T, adjust func(*batchv1.Job, jobexec.Result) jobexec.Result) validation {
	t.Helper()
	ctx := context.Background()
	pinned := "registry.example.com/nvidia/aicr@sha256:" + strings.Repeat("e", 64)
	for _, o := range jobexec.ValidateGrants(jobNS, validateIdentity) {
		require.NoError(t, client.IgnoreAlreadyExists(k8s.Create(ctx, o)))
	}
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: pinned,
		ServiceAccount: validateIdentity}, k8s, k8s)
	require.NoError(t, err)
	f, _ := fixture(t, "1.1.0", v1Synthetic, nil)
	behavior := f.Behavior()
	if adjust != nil {
		played := behavior
		behavior = func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result { return adjust(job, played(job, in)) }
	}
	exec, err := jobexec.New(restConfig, scheme, jobNS, pinned, behavior)
	require.NoError(t, err)
	exec.ExpectServiceAccount(validateIdentity)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return validation{runner: runner, exec: exec, fixture: f, pinned: pinned}
}

// spec is the validate Job name as the operator starts it: the deployment phase of the
// fixture's recipe, never failing on a failed check.
func (v validation) spec(name string) ports.JobSpec {
	return ports.JobSpec{
		Name: name, Kind: ports.JobValidate, Image: v.pinned,
		Args: []string{"--log-json", "validate", "-r", ports.JobInputsDir + "/recipe.yaml", "--phase", "deployment",
			"--namespace", jobNS, "--image", v.pinned, "--fail-on-error=false", "-o", v.runner.OutputRef(name)},
		Inputs: map[string][]byte{"recipe.yaml": v.fixture.Recipe},
		Owner:  ports.ReleaseOwner{RuntimeUID: "uid-1"},
	}
}

// TestRunner_RetainRevokesTheCredential: a failed Job kept seven days for inspection (RES-7)
// keeps no registry credential: Retain deletes the run's Secret, so the push credential lives
// no longer than the run that needed it.
func TestRunner_RetainRevokesTheCredential(t *testing.T) {
	ctx := context.Background()
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, k8s, k8s)
	require.NoError(t, err)
	exec, err := jobexec.New(restConfig, scheme, jobNS, image, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{ExitCode: 2, Log: `{"msg":"command failed","error":"[INVALID_REQUEST] no"}`}
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	spec := ports.JobSpec{
		Name: "aicr-recipe-retained", Kind: ports.JobRecipe, Image: image,
		Args:        []string{"--log-json", "recipe", "-o", runner.OutputRef("aicr-recipe-retained")},
		Credentials: []byte(`{"auths":{"registry.example.com":{"auth":"dTpw"}}}`),
		Owner:       ports.ReleaseOwner{RuntimeUID: "uid-1"},
	}
	t.Cleanup(func() { cancel(); <-done })
	ref, err := runner.Start(ctx, spec)
	require.NoError(t, err)
	t.Cleanup(func() { deleteJob(t, runner, ref) })
	require.Eventually(t, func() bool {
		st, err := runner.Status(ctx, ref)
		return err == nil && st.State == ports.JobFailed
	}, wait, tick, "violations: %v", exec.Violations())
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: jobNS, Name: jobs.RegistryName(spec.Name)}}
	require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(secret), secret), "the run had its credential")

	require.NoError(t, runner.Retain(ctx, ref))
	assert.True(t, secretGone(ctx, secret), "the credential is revoked once the Job is kept")
	job := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: spec.Name}, job))
	require.NotNil(t, job.Spec.TTLSecondsAfterFinished)
	assert.Equal(t, jobs.TTLStalled, *job.Spec.TTLSecondsAfterFinished, "the Job itself stays for inspection")
	require.NoError(t, runner.Retain(ctx, ref), "idempotent")
}
