//go:build e2e

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/test/env"
)

// TestChaosPlanIsReproducible: a seed draws the same kill points every time, another seed
// others, each within the ranges every walk reaches.
func TestChaosPlanIsReproducible(t *testing.T) {
	assert.Equal(t, newKillPlan(7), newKillPlan(7))
	assert.NotEqual(t, newKillPlan(7), newKillPlan(8))
	for seed := range int64(50) {
		p := newKillPlan(seed)
		require.Len(t, p.afterWrite, chaosWriteKills)
		require.Len(t, p.afterAppWrite, chaosAppKills)
		assert.IsIncreasing(t, p.afterWrite)
		assert.IsIncreasing(t, p.afterAppWrite)
		assert.GreaterOrEqual(t, p.afterWrite[0], 1)
		assert.LessOrEqual(t, p.afterWrite[chaosWriteKills-1], chaosCountedWrites)
		assert.LessOrEqual(t, p.afterAppWrite[chaosAppKills-1], chaosAppWrites)
	}
	seeds, err := parseSeeds("1-3, 7")
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2, 3, 7}, seeds)
	for _, bad := range []string{"3-1", "x", "1-", ""} {
		_, err := parseSeeds(bad)
		assert.Error(t, err, bad)
	}
}

// TestChaosWriteCounting: a create answered 201 and a patch answered with a new
// resourceVersion are writes of the step of the rollout created last; a patch answered with
// the version it was guarded by is a no-op, a refused one a failed attempt, and a delete is
// counted apart; a step written twice is a problem, and so is a write outside any step.
func TestChaosWriteCounting(t *testing.T) {
	events := []env.AuditEvent{
		rolloutCreated(t, "rollout-1"),
		appWrite(t, "create", 201, "", "1", "gpu"),
		appWrite(t, "patch", 200, "1", "2", "gpu"), // the same step written again
		appWrite(t, "patch", 200, "2", "2", "gpu"), // changed nothing
		appWrite(t, "patch", 409, "1", "", "gpu"),  // refused
		appWrite(t, "create", 201, "", "3", "net"), // no step of rollout-1 names it
		rolloutCreated(t, "rollout-2"),
		appWrite(t, "patch", 200, "2", "4", "gpu"), // the Remove step's finalizer
		appWrite(t, "delete", 200, "", "5", "gpu"),
		appWrite(t, "patch", 200, "5", "6", "other"), // another user's write is not counted
	}
	events[len(events)-1].User.Username = "someone-else"
	w, err := countAppWrites(events)
	require.NoError(t, err)
	assert.Equal(t, []string{"rollout-1", "rollout-2"}, w.rollouts)
	assert.Equal(t, 1, w.noops)
	assert.Equal(t, 1, w.failed)
	check := w.checkSteps([]aicrv1alpha1.RuntimeRollout{
		rollout("rollout-1", aicrv1alpha1.Step{Release: "gpu", Operation: aicrv1alpha1.OperationInstall}),
		rollout("rollout-2", aicrv1alpha1.Step{Release: "gpu", Operation: aicrv1alpha1.OperationRemove}),
	})
	assert.Equal(t, map[int]int{1: 1, 2: 1}, check.perStep)
	assert.Equal(t, []string{
		"rollout-1 step gpu (Install): 2 writes",
		`1 writes of ns.net outside any step (rollout "rollout-1")`,
	}, check.problems)
}

func rolloutCreated(t *testing.T, name string) env.AuditEvent {
	e := env.AuditEvent{Verb: "create"}
	e.User.Username = operatorUser
	e.ObjectRef.Resource, e.ObjectRef.APIGroup = "runtimerollouts", aicrv1alpha1.GroupVersion.Group
	e.ResponseStatus.Code = 201
	e.ResponseObject = body(t, name, "1", "")
	return e
}

// appWrite is the operator's verb on Application ns.<release> answered code, its request
// guarded by version from (none: ""), its answer at version to.
func appWrite(t *testing.T, verb string, code int, from, to, release string) env.AuditEvent {
	e := env.AuditEvent{Verb: verb}
	e.User.Username = operatorUser
	e.ObjectRef.Resource, e.ObjectRef.APIGroup, e.ObjectRef.Name = "applications", "argoproj.io", "ns."+release
	e.ResponseStatus.Code = code
	e.RequestObject = body(t, "", from, "")
	if to != "" {
		e.ResponseObject = body(t, "ns."+release, to, release)
	}
	return e
}

func body(t *testing.T, name, version, release string) json.RawMessage {
	m := metav1.ObjectMeta{Name: name, ResourceVersion: version}
	if release != "" {
		m.Annotations = map[string]string{wellknown.AnnotationRelease: release}
	}
	raw, err := json.Marshal(map[string]any{"metadata": m})
	require.NoError(t, err)
	return raw
}

func rollout(name string, steps ...aicrv1alpha1.Step) aicrv1alpha1.RuntimeRollout {
	ro := aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	ro.Spec.Steps = steps
	return ro
}
