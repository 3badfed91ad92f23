package resolver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// applyReady applies only the Ready condition with the rollout controller's field manager.
func applyReady(t *testing.T, gen int64, reason string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": "ClusterRuntime",
		"metadata": map[string]any{"name": aicrv1alpha1.ClusterRuntimeName},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": aicrv1alpha1.ConditionReady, "status": "False", "reason": reason, "message": "the target plan is not rolled out yet",
			"observedGeneration": gen, "lastTransitionTime": "2026-11-29T12:00:00Z",
		}}},
	}}
	require.NoError(t, k8s.Status().Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner("aicr-rollout"), client.ForceOwnership))
}

// TestResolved_DisjointFieldManagers: an apply of Ready by another field
// manager keeps Resolved, and the resolver's next apply keeps Ready (CR-7).
func TestResolved_DisjointFieldManagers(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: holding(f, ports.JobSnapshot)})
	cr := createRuntime(t, runtimeSpec())
	resolvedWith(t, domain.ReasonResolving, "aicr-snapshot-")

	applyReady(t, cr.Generation, "NoActivePlan")
	_, live := resolvedWith(t, domain.ReasonResolving, "aicr-snapshot-")
	require.NotNil(t, meta.FindStatusCondition(live.Status.Conditions, aicrv1alpha1.ConditionReady))

	h.SetBehavior(f.Behavior())
	_, live = resolved(t, domain.ReasonResolved)
	ready := meta.FindStatusCondition(live.Status.Conditions, aicrv1alpha1.ConditionReady)
	require.NotNil(t, ready, "the resolver's apply kept Ready")
	assert.Equal(t, "NoActivePlan", ready.Reason)
	for _, mf := range live.ManagedFields {
		if mf.Manager == resolver.FieldManager {
			assert.NotContains(t, mf.FieldsV1.GetRawString(), `"k:{\"type\":\"Ready\"}"`)
		}
	}
	applyReady(t, cr.Generation, "RollingOut")
	_, live = resolved(t, domain.ReasonResolved)
	assert.NotEmpty(t, live.Status.CandidatePlanDigest, "candidatePlanDigest kept")
}

// TestResolve_ConfigurationReusesSnapshotRequestTakesNew: a change of
// overrides resolves again without a new snapshot (CR-5); the resolve request
// annotation takes one new snapshot and is recorded as handled (CR-11).
func TestResolve_ConfigurationReusesSnapshotRequestTakesNew(t *testing.T) {
	f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
	h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()})
	createRuntime(t, runtimeSpec())
	resolved(t, domain.ReasonResolved)
	assertJobsGone(t)
	require.Equal(t, 1, countJobs(h, "snapshot"))

	ctx := context.Background()
	live := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live))
	live.Spec.Overrides = []aicrv1alpha1.Override{{Component: "gpu-operator", Path: "driver.version", Value: apiextensionsv1.JSON{Raw: []byte(`"580.1"`)}}}
	require.NoError(t, k8s.Update(ctx, live))
	require.Eventually(t, func() bool { return countJobs(h, "bundle") == 2 }, wait, tick)
	// The bundle Job goes before the resolver applies Resolved of the new generation (and
	// Resolved of the previous one is still there): wait for that apply, so the Update below
	// does not race it.
	resolvedFor(t, domain.ReasonResolved, live.Generation)
	assertJobsGone(t)
	assert.Equal(t, 1, countJobs(h, "snapshot"), "no new snapshot for an override change")
	assert.Equal(t, 1, countJobs(h, "recipe"), "no new recipe for an override change")

	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live))
	live.Annotations = map[string]string{aicrv1alpha1.AnnotationResolveRequestedAt: "2026-11-29T13:00:00Z"}
	require.NoError(t, k8s.Update(ctx, live))
	require.Eventually(t, func() bool {
		return k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live) == nil &&
			live.Status.HandledRequests.ResolveRequestedAt == "2026-11-29T13:00:00Z"
	}, wait, tick)
	resolved(t, domain.ReasonResolved)
	assertJobsGone(t)
	assert.Equal(t, 2, countJobs(h, "snapshot"), "one new snapshot per request")
}

func countJobs(h *harness, kind string) int {
	n := 0
	for _, name := range h.Executed() {
		if strings.HasPrefix(name, "aicr-"+kind+"-") {
			n++
		}
	}
	return n
}

// applyActive sets status.activePlanDigest as the rollout controller would.
func applyActive(t *testing.T, digest string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": "ClusterRuntime",
		"metadata": map[string]any{"name": aicrv1alpha1.ClusterRuntimeName},
		"status":   map[string]any{"activePlanDigest": digest},
	}}
	require.NoError(t, k8s.Status().Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner("aicr-rollout"), client.ForceOwnership))
}

func jsonValue(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }
