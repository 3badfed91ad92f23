package rollout_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// leftBehind creates what a resolution leaves in the cluster besides plans: a kept snapshot copy
// and an AICR Job, both carrying the operator's labels, and a ConfigMap of someone else.
func (h *harness) leftBehind() (kept, foreign *corev1.ConfigMap, job *batchv1.Job) {
	h.t.Helper()
	ctx := context.Background()
	managed := map[string]string{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}
	kept = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-kept", Namespace: operatorNamespace,
		Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleSnapshot, aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}},
		Data: map[string]string{"snapshot.yaml": "kind: Snapshot"}}
	foreign = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "someone-elses", Namespace: operatorNamespace},
		Data: map[string]string{"k": "v"}}
	job = &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-0123456789abcdef", Namespace: operatorNamespace, Labels: managed},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "aicr", Image: "aicr@sha256:" + zeros}},
		}}}}
	for _, o := range []client.Object{kept, foreign, job} {
		require.NoError(h.t, k8s.Create(ctx, o))
	}
	h.t.Cleanup(func() {
		_ = k8s.Delete(context.Background(), foreign)
		_ = k8s.Delete(context.Background(), job, client.PropagationPolicy(metav1.DeletePropagationBackground))
	})
	return kept, foreign, job
}

// operatorConfigMaps lists the ConfigMaps of the operator namespace carrying a role label.
func (h *harness) operatorConfigMaps() []string {
	h.t.Helper()
	var list corev1.ConfigMapList
	require.NoError(h.t, k8s.List(context.Background(), &list, client.InNamespace(operatorNamespace),
		client.HasLabels{aicrv1alpha1.LabelRole}))
	out := make([]string, 0, len(list.Items))
	for _, cm := range list.Items {
		out = append(out, cm.Name)
	}
	return out
}

// waitGone waits until the ClusterRuntime no longer exists.
func (h *harness) waitGone() {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName},
			&aicrv1alpha1.ClusterRuntime{}))
	}, waitFor, tick, "the ClusterRuntime is never gone")
}

// Deleting the ClusterRuntime ends the rollout in progress Orphaned once its step in flight
// finished, then deletes the operator's plans, recipes, values, kept results and Jobs and
// removes the finalizer the operator added; Ready is Deleting meanwhile. The Applications stay
// with their annotations and nothing is removed from the engine (CR-12, CR-8, RO-6, OPS-1).
func TestRuntimeDeletionOrphansTheRolloutAndCleansUpCR12(t *testing.T) {
	h := newHarness(t, false)
	h.start()
	uid := h.createRuntime(nil)
	require.Eventually(t, func() bool {
		return slices.Contains(h.runtime().Finalizers, aicrv1alpha1.FinalizerCleanup)
	}, waitFor, tick, "the operator adds its finalizer")
	plan := h.fixturePlan(fixtureInstall, uid)
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	first := ro.Spec.Steps[0].Release
	h.waitReleaseState(ro.Name, first, "InFlight")
	kept, foreign, job := h.leftBehind()

	require.NoError(t, k8s.Delete(context.Background(), h.runtime()))
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonDeleting, "the ClusterRuntime is being deleted")
	h.waitCondition(aicrv1alpha1.ConditionReconciling, metav1.ConditionTrue, domain.ReasonDeleting,
		"deleting: waiting for rollout "+ro.Name+" to end Orphaned after its step in flight; "+
			"the engine objects stay for a later runtime to adopt (spec.adoption.runtimeUID "+uid+")")
	assert.Contains(t, h.operatorConfigMaps(), kept.Name, "nothing is deleted while the rollout may still read its plans")
	writes, _, _ := h.engine.Counts()

	h.engine.Settle() // the step in flight finishes
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseOrphaned)
	assert.Equal(t, "its ClusterRuntime is being deleted, the step in flight finished", done.Status.Message)
	assert.Equal(t, aicrv1alpha1.ReleaseState("Ready"), done.Status.Releases[0].State, "the step in flight finished")
	h.waitGone()
	h.waitEvent(uid, corev1.EventTypeNormal, "CleanedUp", "finalizer "+aicrv1alpha1.FinalizerCleanup+" removed")
	h.waitEvent(string(done.UID), corev1.EventTypeWarning, "RolloutEnded", "its ClusterRuntime is being deleted")

	assert.Empty(t, h.operatorConfigMaps(), "plans, recipes, values and kept results are deleted")
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKeyFromObject(foreign), &corev1.ConfigMap{}),
		"a ConfigMap without the operator's labels stays")
	gone := &batchv1.Job{}
	err := k8s.Get(context.Background(), client.ObjectKeyFromObject(job), gone)
	assert.True(t, apierrors.IsNotFound(err) || !gone.DeletionTimestamp.IsZero(), "the operator's Job is deleted: %v", err)
	w, removes, _ := h.engine.Counts()
	assert.Equal(t, writes, w, "no engine write after the deletion began")
	assert.Zero(t, removes, "no Application is removed")
	owners := h.liveOwners()
	require.Len(t, owners, 1)
	assert.Equal(t, uid, owners[first], "the Application keeps its annotations for adoption")
	assert.Len(t, h.rollouts(), 1, "the rollout stays as the record of what happened")
}

// A runtime deleted after a successful install leaves its Applications; a new runtime that
// names it in spec.adoption.runtimeUID takes every one of them over with approved Adopt steps,
// and no Application is ever removed (CR-12, RO-7).
func TestAdoptionAfterDeletionCR12(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	oldUID, a := h.installed(nil)
	require.NoError(t, k8s.Delete(context.Background(), h.runtime()))
	h.waitGone()
	assert.Empty(t, h.operatorConfigMaps())
	for id, owner := range h.liveOwners() {
		assert.Equal(t, oldUID, owner, id)
	}

	newUID := h.createRuntime(func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Spec.Adoption = &aicrv1alpha1.Adoption{RuntimeUID: oldUID}
	})
	b := h.fixturePlan(fixtureUpgradeFrom, newUID)
	h.setCandidate(h.writePlan(b), metav1.Condition{})
	ro := h.waitRollout(2)
	assert.Equal(t, newUID, ro.Spec.RuntimeUID)
	assert.True(t, ro.Spec.ApprovalRequired, "adopting needs an approval")
	require.Len(t, ro.Spec.Steps, len(a.Releases))
	for _, s := range ro.Spec.Steps {
		assert.Equal(t, aicrv1alpha1.Operation(domain.OpAdopt), s.Operation, s.Release)
	}
	h.waitPhase(ro.Name, aicrv1alpha1.PhaseAwaitingApproval)
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)

	live := h.liveReleases()
	require.Len(t, live, len(b.Releases))
	for id, st := range live {
		assert.Equal(t, newUID, st.Owner.RuntimeUID, id)
		assert.Equal(t, b.Digest, st.Owner.PlanDigest, id)
	}
	_, removes, _ := h.engine.Counts()
	assert.Zero(t, removes, "adoption removes no Application")
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
}
