package resolver_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// pokes makes every poke annotation value unique.
var pokes atomic.Int64

// poke changes an annotation the resolver does not read, so it reconciles at once: the test
// moved the fake clock, which no watch sees.
func poke(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	patch := client.MergeFrom(cr.DeepCopy())
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	cr.Annotations["test.aicr.run/poke"] = strconv.FormatInt(pokes.Add(1), 10)
	require.NoError(t, k8s.Patch(ctx, cr, patch))
}

// recipeJobs plays b for recipe Jobs and f for the others.
func recipeJobs(f jobexec.Fixture, b jobexec.Behavior) jobexec.Behavior {
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if ports.JobKind(job.Labels[jobs.KindLabel]) == ports.JobRecipe {
			return b(job, in)
		}
		return f.Behavior()(job, in)
	}
}

// startFaking runs the resolver with the executor stamping the cluster's times from the
// resolver's fake clock.
func startFaking(t *testing.T, f jobexec.Fixture, allowed []string, b jobexec.Behavior) *harness {
	t.Helper()
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: b})
	h.exec.UseClock(h.clock)
	return h
}

// waitingPod reports whether a Pod in the Job namespace waits for reason, or for
// ports.JobPodNotCreated whether a started recipe Job has no Pod.
func waitingPod(reason string) bool {
	if reason == ports.JobPodNotCreated {
		// Pods of an earlier case's Jobs may still be collected: only this Job's count.
		list := &batchv1.JobList{}
		return k8s.List(context.Background(), list, client.InNamespace(jobNS)) == nil &&
			slices.ContainsFunc(list.Items, func(j batchv1.Job) bool {
				pods := &corev1.PodList{}
				return strings.HasPrefix(j.Name, "aicr-recipe-") && j.DeletionTimestamp == nil && j.Status.StartTime != nil &&
					k8s.List(context.Background(), pods, client.InNamespace(jobNS),
						client.MatchingLabels{jobs.JobNameLabel: j.Name}) == nil && len(pods.Items) == 0
			})
	}
	pods := &corev1.PodList{}
	if k8s.List(context.Background(), pods, client.InNamespace(jobNS)) != nil {
		return false
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == reason {
				return true
			}
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Waiting != nil && cs.State.Waiting.Reason == reason {
				return true
			}
		}
	}
	return false
}

// TestResolve_PodNotRunningStalls: a recipe Job whose pod waits (unschedulable, its image not
// pulled, its container not configured) or was never created is Resolving until domain.JobPodWaitBound and domain.ClockSkewTolerance passed on
// the clock, then stalls JobPodNotRunning with the pod's own reason and message and what to
// fix; once the pod runs the stage goes on and the runtime resolves.
func TestResolve_PodNotRunningStalls(t *testing.T) {
	for _, tc := range []struct {
		reason, message, fix string
	}{
		{"ImagePullBackOff", `Back-off pulling image "registry.example.com/nvidia/aicr"`, "jobs.imagePullSecrets"},
		{jobexec.Unschedulable, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector", "jobs.nodeSelector"},
		{"CreateContainerConfigError", `secret "aicr-registry" not found`, "a Secret or ConfigMap it uses is missing"},
		{ports.JobPodNotCreated, "the Job controller started the Job but created no pod", "kubectl describe job"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			h := startFaking(t, f, allowed, recipeJobs(f, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
				return jobexec.Result{Waiting: &jobexec.Waiting{Reason: tc.reason, Message: tc.message}}
			}))
			createRuntime(t, runtimeSpec())
			require.Eventually(t, func() bool { return waitingPod(tc.reason) }, wait, tick, "the recipe pod waits")
			resolvedWith(t, domain.ReasonResolving, "job aicr-recipe-")
			h.clock.Step(domain.JobPodWaitBound + domain.ClockSkewTolerance)
			poke(t)
			cond, _ := resolvedWith(t, string(domain.StallJobPodNotRunning), tc.reason)
			for _, part := range []string{"aicr recipe job aicr-recipe-", tc.message, tc.fix, "resolve-requested-at"} {
				assert.Contains(t, cond.Message, part)
			}
			h.exec.SetBehavior(f.Behavior())
			resolved(t, domain.ReasonResolved)
		})
	}
}

// TestResolve_KilledRunsAgain: a recipe Job killed with exit code 137 is not AICRInternal: the
// stage waits out the backoff on the clock, runs again as <job>-2, which succeeds, and the
// runtime resolves; the killed run is kept for inspection (its TTL), the second is deleted once
// its result is kept (RES-4, RES-7).
func TestResolve_KilledRunsAgain(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := startFaking(t, f, allowed, recipeJobs(f, func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if strings.HasSuffix(job.Name, "-2") {
			return f.Behavior()(job, in)
		}
		return jobexec.Result{ExitCode: 137}
	}))
	createRuntime(t, runtimeSpec())
	resolvedWith(t, domain.ReasonResolving, "run 2 of 3 starts after a 30s backoff")
	h.clock.Step(30 * time.Second)
	poke(t)
	resolved(t, domain.ReasonResolved)
	var first string
	for _, name := range h.exec.Executed() {
		if strings.HasPrefix(name, "aicr-recipe-") && !strings.HasSuffix(name, "-2") {
			first = name
		}
	}
	require.NotEmpty(t, first)
	assert.Contains(t, h.exec.Executed(), first+"-2")
	killed := &batchv1.Job{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: first}, killed))
	assert.Equal(t, jobs.TTLFinished, *killed.Spec.TTLSecondsAfterFinished)
	require.Eventually(t, func() bool {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: first + "-2"}, &batchv1.Job{}) != nil
	}, wait, tick, "the second run is deleted once its result is kept")
}

// recipeRuns are the recipe Jobs the executor played, in order.
func recipeRuns(h *harness) []string {
	var runs []string
	for _, name := range h.exec.Executed() {
		if strings.HasPrefix(name, "aicr-recipe-") {
			runs = append(runs, name)
		}
	}
	return runs
}

// TestResolve_LostOutputRunsAgain: a recipe Job that succeeded but whose output is lost before
// the resolver reads it (its ConfigMap deleted, or left empty: AICR wrote nothing) is run again
// as its second run, not judged by a version it does not show (no AICRVersionMismatch), and the
// runtime resolves; the first run is left to its 24 h TTL (RES-5, RES-7).
func TestResolve_LostOutputRunsAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(jobexec.Result) jobexec.Result
	}{
		{"output deleted", func(res jobexec.Result) jobexec.Result { res.LoseOutput = true; return res }},
		{"output empty", func(jobexec.Result) jobexec.Result { return jobexec.Result{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			var runs atomic.Int64
			h := startFaking(t, f, allowed, recipeJobs(f, func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
				res := f.Behavior()(job, in)
				if runs.Add(1) == 1 {
					return tc.lose(res)
				}
				return res
			}))
			createRuntime(t, runtimeSpec())
			resolved(t, domain.ReasonResolved)
			recipes := recipeRuns(h)
			require.Len(t, recipes, 2, "the recipe Job ran again")
			assert.Equal(t, recipes[0]+"-2", recipes[1])
			first := &batchv1.Job{}
			require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: recipes[0]}, first))
			assert.Equal(t, jobs.TTLFinished, *first.Spec.TTLSecondsAfterFinished, "the run that lost its output goes with its TTL")
		})
	}
}

// TestResolve_OutputLostThreeTimesStalls: a recipe Job whose output is empty on every run runs
// three times, then stalls JobOutputLost naming the last run and what to look for, never
// AICRVersionMismatch; every run is kept seven days (RES-5, RES-7).
func TestResolve_OutputLostThreeTimesStalls(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := startFaking(t, f, allowed, recipeJobs(f, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{}
	}))
	createRuntime(t, runtimeSpec())
	cond, _ := resolvedWith(t, string(domain.StallJobOutputLost), "3 times in a row")
	assert.Contains(t, cond.Message, "-3")
	assert.Contains(t, cond.Message, "-output")
	runs := recipeRuns(h)
	require.Len(t, runs, 3)
	for _, name := range runs {
		job := &batchv1.Job{}
		require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: name}, job))
		assert.Equal(t, jobs.TTLStalled, *job.Spec.TTLSecondsAfterFinished, name)
	}
}

// TestResolve_KilledThreeTimesStalls: a recipe Job OOMKilled on every run runs three times, each
// after its backoff, then stalls JobPodKilled naming the cause and the memory limit; every run
// is kept seven days (RES-7).
func TestResolve_KilledThreeTimesStalls(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := startFaking(t, f, allowed, recipeJobs(f, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{Kill: jobexec.KillOOM}
	}))
	createRuntime(t, runtimeSpec())
	resolvedWith(t, domain.ReasonResolving, "run 2 of 3 starts after a 30s backoff")
	h.clock.Step(30 * time.Second)
	poke(t)
	resolvedWith(t, domain.ReasonResolving, "run 3 of 3 starts after a 1m0s backoff")
	h.clock.Step(time.Minute)
	poke(t)
	cond, _ := resolvedWith(t, string(domain.StallJobPodKilled), "OOMKilled")
	assert.Contains(t, cond.Message, "jobs.resources.limits.memory")
	var runs []string
	for _, name := range h.exec.Executed() {
		if strings.HasPrefix(name, "aicr-recipe-") {
			runs = append(runs, name)
		}
	}
	require.Len(t, runs, 3)
	for _, name := range runs {
		job := &batchv1.Job{}
		require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: jobNS, Name: name}, job))
		assert.Equal(t, jobs.TTLStalled, *job.Spec.TTLSecondsAfterFinished, name)
	}
}

// TestRunner_PodSettingsAndFaults: every Job carries the installation's pod settings
// (deadline, resources, node selector, tolerations, pull Secrets), and Status reads each way
// a Job fails as a Job (OOMKilled, evicted, disrupted, exit 143, its deadline) from the Job and
// its Pod as the API server stores them.
func TestRunner_PodSettingsAndFaults(t *testing.T) {
	ctx := context.Background()
	pod := jobs.PodSettings{
		ActiveDeadlineSeconds: 1800,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
		NodeSelector:     map[string]string{"aicr.test/pool": "system"},
		Tolerations:      []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		ImagePullSecrets: []string{"regcred"},
	}
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage, Pod: pod}, k8s, k8s)
	require.NoError(t, err)
	results := map[string]jobexec.Result{
		"aicr-recipe-oom":      {Kill: jobexec.KillOOM},
		"aicr-recipe-evicted":  {Kill: jobexec.KillEvicted},
		"aicr-recipe-drained":  {Kill: jobexec.KillDisrupted, ExitCode: 143},
		"aicr-recipe-sigterm":  {ExitCode: 143},
		"aicr-recipe-deadline": {ExitCode: 143, DeadlineExceeded: true},
	}
	exec, err := jobexec.New(restConfig, scheme, jobNS, image, func(job *batchv1.Job, _ *corev1.ConfigMap) jobexec.Result {
		return results[job.Name]
	})
	require.NoError(t, err)
	fake := clock.NewFake(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	exec.UseClock(fake)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	want := map[string]ports.JobStatus{
		"aicr-recipe-oom":      {ExitCode: 137, Killed: "OOMKilled"},
		"aicr-recipe-evicted":  {ExitCode: 137, Killed: "Evicted"},
		"aicr-recipe-drained":  {ExitCode: 143, Killed: "DisruptionTarget (EvictionByEvictionAPI)"},
		"aicr-recipe-sigterm":  {ExitCode: 143},
		"aicr-recipe-deadline": {ExitCode: 143, DeadlineExceeded: true},
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ref, err := runner.Start(ctx, ports.JobSpec{Name: name, Kind: ports.JobRecipe, Image: image,
			Args: []string{"--log-json", "recipe", "-o", runner.OutputRef(name)}, Owner: ports.ReleaseOwner{RuntimeUID: "uid-1"}})
		require.NoError(t, err)
		t.Cleanup(func() { deleteJob(t, runner, ref) })
		var st ports.JobStatus
		require.Eventually(t, func() bool {
			st, err = runner.Status(ctx, ref)
			return err == nil && st.State == ports.JobFailed
		}, wait, tick, name)
		w := want[name]
		assert.Equal(t, w.ExitCode, st.ExitCode, name)
		assert.Equal(t, w.Killed, st.Killed, name)
		assert.Equal(t, w.DeadlineExceeded, st.DeadlineExceeded, name)
		assert.Equal(t, fake.Now().Truncate(time.Second), st.FinishedAt.UTC(), name)

		job := &batchv1.Job{}
		require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: name}, job))
		spec := job.Spec.Template.Spec
		assert.Equal(t, int64(1800), *job.Spec.ActiveDeadlineSeconds)
		assert.Equal(t, pod.NodeSelector, spec.NodeSelector)
		assert.Equal(t, pod.Tolerations, spec.Tolerations)
		assert.Equal(t, []corev1.LocalObjectReference{{Name: "regcred"}}, spec.ImagePullSecrets)
		assert.True(t, pod.Resources.Limits.Memory().Equal(*spec.Containers[0].Resources.Limits.Memory()))
	}
	assert.Empty(t, exec.Violations())
}

// recipeJob waits for the recipe Job and returns it.
func recipeJob(t *testing.T) *batchv1.Job {
	t.Helper()
	var found *batchv1.Job
	require.Eventually(t, func() bool {
		list := &batchv1.JobList{}
		if k8s.List(context.Background(), list, client.InNamespace(jobNS)) != nil {
			return false
		}
		for i := range list.Items {
			if strings.HasPrefix(list.Items[i].Name, "aicr-recipe-") && list.Items[i].DeletionTimestamp == nil {
				found = &list.Items[i]
				return true
			}
		}
		return false
	}, wait, tick, "the recipe Job exists")
	return found
}

// TestResolve_UndeletableJobStalls: a Jobs-namespace administrator holds a running recipe Job
// with a finalizer and deletes it. The Job is never read as running: the stage waits for it
// to go, stalls JobUndeletable with the Job and the remedy once domain.JobDeletionBound passed
// since its deletion, and starts a fresh Job once the finalizer is removed.
func TestResolve_UndeletableJobStalls(t *testing.T) {
	const hold = "example.com/hold"
	ctx := context.Background()
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := startFaking(t, f, allowed, recipeJobs(f, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{Hold: true}
	}))
	createRuntime(t, runtimeSpec())
	job := recipeJob(t)
	patch := client.MergeFrom(job.DeepCopy())
	job.Finalizers = append(job.Finalizers, hold)
	require.NoError(t, k8s.Patch(ctx, job, patch))
	require.NoError(t, k8s.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)))
	require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(job), job))
	require.NotNil(t, job.DeletionTimestamp)
	poke(t)
	resolvedWith(t, domain.ReasonResolving, job.Name+" is being deleted")

	// The API server stamps the deletion with its own time; the operator measures on its clock.
	h.clock.Set(job.DeletionTimestamp.Add(domain.JobDeletionBound + domain.ClockSkewTolerance))
	poke(t)
	cond, _ := resolvedWith(t, string(domain.StallJobUndeletable), job.Name)
	assert.Contains(t, cond.Message, "finalizer")

	h.exec.SetBehavior(f.Behavior())
	patch = client.MergeFrom(job.DeepCopy())
	job.Finalizers = slices.DeleteFunc(job.Finalizers, func(s string) bool { return s == hold })
	require.NoError(t, k8s.Patch(ctx, job, patch))
	poke(t)
	resolved(t, domain.ReasonResolved)
}
