package trust_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// snapshotAgent is the runner of the snapshot agent as the operator builds it: the pinned AICR
// image in agent mode, in the discovery namespace, as the agent identity the chart provisions.
func snapshotAgent(c client.Client, r client.Reader) (*jobs.Runner, error) {
	return jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: discoveryNS, OperatorNamespace: operatorNS, Image: aicrImage,
		ServiceAccount: jobs.AgentServiceAccount, Agent: true}, c, r)
}

// TestSnapshotAgent_ChartRightsAreTheAgentsRights: the chart grants aicr-snapshot-agent exactly
// the rights test/jobexec's model of AICR's agent asks for (jobexec.AgentRights), and nothing
// in any other namespace.
func TestSnapshotAgent_ChartRightsAreTheAgentsRights(t *testing.T) {
	baseline(t)
	ctx := context.Background()
	var granted []jobexec.Right
	cr := &rbacv1.ClusterRole{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: jobs.AgentServiceAccount}, cr))
	role := &rbacv1.Role{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: discoveryNS, Name: jobs.AgentServiceAccount}, role))
	for namespaced, rules := range map[bool][]rbacv1.PolicyRule{false: cr.Rules, true: role.Rules} {
		for _, r := range rules {
			assert.Empty(t, r.ResourceNames, "no rule by name")
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						granted = append(granted, jobexec.Right{Group: g, Resource: res, Verb: v, Namespaced: namespaced})
					}
				}
			}
		}
	}
	assert.ElementsMatch(t, jobexec.AgentRights, granted)
	for _, r := range []authorizationv1.ResourceAttributes{
		{Group: "batch", Resource: "jobs", Verb: "create", Namespace: "default"},
		{Resource: "serviceaccounts", Verb: "create", Namespace: discoveryNS},
		{Resource: "secrets", Verb: "list"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Verb: "create"},
	} {
		assert.False(t, agentAllowed(t, r), "aicr-snapshot-agent may not %s %s", r.Verb, r.Resource)
	}
}

// TestSnapshotAgent_StageSucceedsWithTheChartsRights: the snapshot stage, run as the operator
// runs it (the agent runner as the operator's identity), succeeds under the chart's RBAC and
// admission policies, and the simulated agent finds the contract kept.
func TestSnapshotAgent_StageSucceedsWithTheChartsRights(t *testing.T) {
	w := baseline(t)
	files := runSnapshotStage(t, "aicr-snapshot-agent-rights", func(run app.StageRun) bool { return run.Files != nil }).Files
	data, err := files.Open(ports.JobArtifactFile)
	require.NoError(t, err)
	_ = data.Close()
	assert.Empty(t, violationsOf(w.agent, "aicr-snapshot-agent-rights"), "the snapshot contract is kept")
}

// TestSnapshotAgent_MissingRightStallsUnauthorized: with one right of the agent removed from
// the chart's ClusterRole, the simulated agent fails as AICR does (exit 4, UNAUTHORIZED, the
// refused request in its JSON failure line) and the stage stalls AICRUnauthorized with a
// message that says to restore the chart's RBAC.
func TestSnapshotAgent_MissingRightStallsUnauthorized(t *testing.T) {
	baseline(t)
	ctx := context.Background()
	cr := &rbacv1.ClusterRole{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: jobs.AgentServiceAccount}, cr))
	full := cr.DeepCopy()
	cr.Rules = slices.DeleteFunc(cr.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "pods") })
	require.NoError(t, k8s.Update(ctx, cr))
	t.Cleanup(func() {
		live := &rbacv1.ClusterRole{}
		require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: jobs.AgentServiceAccount}, live))
		live.Rules = full.Rules
		require.NoError(t, k8s.Update(ctx, live))
		require.Eventually(t, func() bool {
			return agentAllowed(t, authorizationv1.ResourceAttributes{Resource: "pods", Verb: "list"})
		}, waitFor, tick, "the chart's rights are back")
	})
	require.Eventually(t, func() bool {
		return !agentAllowed(t, authorizationv1.ResourceAttributes{Resource: "pods", Verb: "list"})
	}, waitFor, tick, "the API server no longer grants the removed right")

	run := runSnapshotStage(t, "aicr-snapshot-agent-no-pods", func(run app.StageRun) bool { return run.Stall != nil })
	assert.Equal(t, domain.StallAICRUnauthorized, run.Stall.Reason())
	assert.Contains(t, run.Stall.Message(), `cannot list resource "pods"`)
	assert.Contains(t, run.Stall.Message(), "restore the chart's RBAC")
}

// TestSnapshotAgent_SnapshotOutsideTheAgentContractFails: a snapshot run in the Job namespace
// as aicr-jobs (aicr snapshot without agent mode, which would deploy its own agent Job into
// "default") breaks the contract: the simulated AICR records the violation and fails the run as
// AICR would without the right to create that Job.
func TestSnapshotAgent_SnapshotOutsideTheAgentContractFails(t *testing.T) {
	w := baseline(t)
	runner, err := jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: jobsNS, OperatorNamespace: operatorNS, Image: aicrImage, CopierImage: jobexec.CopierImage}, operator(), operator())
	require.NoError(t, err)
	const name = "aicr-snapshot-outside-contract"
	t.Cleanup(func() { deleteStageJob(t, runner, jobsNS, name) })
	stage := app.Stage{Kind: ports.JobSnapshot, Name: name, Args: []string{"--log-json", "snapshot", "-o", runner.OutputRef(name)}}
	run := pollStage(t, runner, stage, func(run app.StageRun) bool { return run.Stall != nil })
	assert.Equal(t, domain.StallAICRUnauthorized, run.Stall.Reason())
	assert.Contains(t, run.Stall.Message(), `cannot create resource "jobs" in API group "batch" in the namespace "default"`)
	assert.NotEmpty(t, violationsOf(w.exec, name), "the executor reports the broken contract")
}

// runSnapshotStage runs the snapshot stage name as the operator does until done accepts a run.
func runSnapshotStage(t *testing.T, name string, done func(app.StageRun) bool) app.StageRun {
	t.Helper()
	runner, err := snapshotAgent(operator(), operator())
	require.NoError(t, err)
	stage := app.Stage{Kind: ports.JobSnapshot, Name: name, Args: []string{"--log-json", "snapshot", "-o", runner.OutputRef(name)},
		Placement: &ports.JobPlacement{NodeSelector: map[string]string{jobexec.PoolLabel: "gpu"}}}
	t.Cleanup(func() { deleteStageJob(t, runner, discoveryNS, name) })
	return pollStage(t, runner, stage, done)
}

// pollStage runs stage over runner until done accepts a run (the Job runs asynchronously).
func pollStage(t *testing.T, runner ports.JobRunner, stage app.Stage, done func(app.StageRun) bool) app.StageRun {
	t.Helper()
	stages := app.StageRunner{Jobs: runner, Image: aicrImage, AICRVersion: aicrVersion}
	var run app.StageRun
	require.Eventually(t, func() bool {
		run = stages.Run(context.Background(), string(liveRuntime(t).UID), stage)
		return done(run)
	}, waitFor, tick, "stage %s", stage.Name)
	return run
}

// deleteStageJob deletes the stage's Job, if any, and waits until it is gone.
func deleteStageJob(t *testing.T, runner ports.JobRunner, namespace, name string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, runner.Delete(ctx, ports.JobRef{Name: name}))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &batchv1.Job{}))
	}, waitFor, tick, "job %s deleted", name)
}

// agentAllowed asks the API server whether aicr-snapshot-agent holds the right attrs.
func agentAllowed(t *testing.T, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + discoveryNS + ":" + jobs.AgentServiceAccount,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + discoveryNS, "system:authenticated"},
		ResourceAttributes: &attrs,
	}}
	require.NoError(t, k8s.Create(context.Background(), review))
	return review.Status.Allowed
}

// violationsOf returns the executor's violations about the Job name.
func violationsOf(e *jobexec.Executor, name string) []error {
	var out []error
	for _, err := range e.Violations() {
		if strings.Contains(err.Error(), "job "+name+":") {
			out = append(out, err)
		}
	}
	return out
}
