package cli_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// getRuntime reads the suite's ClusterRuntime as the administrator.
func getRuntime(t *testing.T) *aicrv1alpha1.ClusterRuntime {
	t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, clientFor(testEnv.Config).Get(context.Background(), client.ObjectKey{Name: "cluster"}, cr))
	return cr
}

// restoreRuntime puts the suite's ClusterRuntime's spec, annotations and conditions back as the
// test found them, when it ends.
func restoreRuntime(t *testing.T) {
	t.Helper()
	before := getRuntime(t)
	t.Cleanup(func() {
		ctx := context.Background()
		cr := getRuntime(t)
		cr.Spec, cr.Annotations = before.Spec, before.Annotations
		require.NoError(t, clientFor(testEnv.Config).Update(ctx, cr))
		cr = getRuntime(t)
		cr.Status.Conditions = before.Status.Conditions
		require.NoError(t, clientFor(operatorConfig()).Status().Update(ctx, cr))
	})
}

// stallRuntime has the operator report the runtime Stalled with reason.
func stallRuntime(t *testing.T, reason string) {
	t.Helper()
	cr := getRuntime(t)
	meta.SetStatusCondition(&cr.Status.Conditions, metav1.Condition{Type: aicrv1alpha1.ConditionStalled,
		Status: metav1.ConditionTrue, Reason: reason, Message: "rollout rollout-1 ended"})
	require.NoError(t, clientFor(operatorConfig()).Status().Update(context.Background(), cr))
}

// TestRuntimeSwitches: pause, resume, suspend and unsuspend set their spec field as the user
// and refuse what would change nothing.
func TestRuntimeSwitches(t *testing.T) {
	needEnv(t)
	restoreRuntime(t)
	steps := []struct {
		args      []string
		wantOut   string
		refused   string
		paused    bool
		suspended bool
	}{
		{args: []string{"resume"}, refused: "clusterruntime cluster is not paused (spec.paused is false)"},
		{args: []string{"pause"}, paused: true,
			wantOut: "clusterruntime cluster paused: no rollout, step or validation run starts until `kubectl aicr resume`\n"},
		{args: []string{"pause"}, paused: true, refused: "clusterruntime cluster is already paused (spec.paused is true)"},
		{args: []string{"resume"}, wantOut: "clusterruntime cluster resumed\n"},
		{args: []string{"unsuspend"}, refused: "does not have its engine suspended (spec.suspendEngine is false)"},
		{args: []string{"suspend"}, suspended: true,
			wantOut: "clusterruntime cluster engine suspended: the operator turns automated sync off on every Application; " +
				"`kubectl aicr unsuspend` turns it on\n"},
		{args: []string{"suspend"}, suspended: true, refused: "already has its engine suspended (spec.suspendEngine is true)"},
		{args: []string{"unsuspend"}, wantOut: "clusterruntime cluster engine unsuspended: automated sync is turned back on\n"},
	}
	for _, st := range steps {
		r := run(platformUser, st.args...)
		if st.refused != "" {
			requireRefused(t, r, st.refused)
		} else {
			requireOK(t, r)
			assert.Equal(t, st.wantOut, r.stdout)
		}
		cr := getRuntime(t)
		assert.Equal(t, st.paused, cr.Spec.Paused, "%v: spec.paused", st.args)
		assert.Equal(t, st.suspended, cr.Spec.SuspendEngine, "%v: spec.suspendEngine", st.args)
	}
}

// TestRuntimeRequests: resolve and retry set their request annotation to the current time as
// the user; retry only when the last rollout failed, expired or was revoked, and neither sends
// the value already set.
func TestRuntimeRequests(t *testing.T) {
	needEnv(t)
	restoreRuntime(t)
	at := now.UTC().Format("2006-01-02T15:04:05Z")

	r := run(platformUser, "resolve")
	requireOK(t, r)
	assert.Equal(t, "clusterruntime cluster: resolution requested at "+at+" ("+aicrv1alpha1.AnnotationResolveRequestedAt+")\n", r.stdout)
	assert.Equal(t, at, getRuntime(t).Annotations[aicrv1alpha1.AnnotationResolveRequestedAt])
	requireRefused(t, run(platformUser, "resolve"), "clusterruntime cluster: a resolution was already requested at "+at)

	requireRefused(t, run(platformUser, "retry"),
		"clusterruntime cluster has nothing to retry: it is not Stalled, not with RolloutFailed, RolloutExpired or RolloutRevoked")
	stallRuntime(t, "PlanUnreadable")
	requireRefused(t, run(platformUser, "retry"), "it is Stalled with PlanUnreadable")
	assert.Empty(t, getRuntime(t).Annotations[aicrv1alpha1.AnnotationRetryRequestedAt], "a refusal writes nothing")
	for _, reason := range []string{"RolloutFailed", "RolloutExpired", "RolloutRevoked"} {
		stallRuntime(t, reason)
		cr := getRuntime(t)
		delete(cr.Annotations, aicrv1alpha1.AnnotationRetryRequestedAt)
		require.NoError(t, clientFor(testEnv.Config).Update(context.Background(), cr))
		r = run(platformUser, "retry")
		requireOK(t, r)
		assert.Equal(t, "clusterruntime cluster: retry requested at "+at+" ("+aicrv1alpha1.AnnotationRetryRequestedAt+")\n", r.stdout)
		assert.Equal(t, at, getRuntime(t).Annotations[aicrv1alpha1.AnnotationRetryRequestedAt], reason)
	}
}

// TestRuntimeChanges_RefusedByTheAPIServer: an approver or a viewer cannot change the runtime.
func TestRuntimeChanges_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	before := getRuntime(t)
	for _, args := range [][]string{{"pause"}, {"suspend"}, {"resolve"}} {
		requireRefused(t, run(approverUser, args...), `User "approver-alice" cannot patch resource "clusterruntimes"`)
	}
	requireRefused(t, run(strangerUser, "pause"), `User "stranger-sam" cannot get resource "clusterruntimes"`)
	after := getRuntime(t)
	assert.Equal(t, before.Spec, after.Spec)
	assert.Equal(t, before.Annotations, after.Annotations)
}

// TestRuntimeChange_DecidedAgainOnConflict: when the runtime changes between the command's
// read and its write, the write is refused as a conflict and the command decides again on
// what the runtime now says: a pause someone made first is refused, not written twice.
func TestRuntimeChange_DecidedAgainOnConflict(t *testing.T) {
	needEnv(t)
	restoreRuntime(t)
	pauseFirst := func() {
		cr := getRuntime(t)
		cr.Spec.Paused = true
		require.NoError(t, clientFor(testEnv.Config).Update(context.Background(), cr))
	}
	r, patches := runRacing(pauseFirst, platformUser, "pause")
	requireRefused(t, r, "clusterruntime cluster is already paused")
	assert.Equal(t, 1, patches, "the conflicting patch, then no second one")

	r, patches = runRacing(func() { stallRuntime(t, "RolloutFailed") }, platformUser, "resume")
	requireOK(t, r)
	assert.Equal(t, 2, patches, "a conflict, then the decision made again")
	assert.False(t, getRuntime(t).Spec.Paused)
}
