package rollout_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// trainingCluster creates, for test prefix p, an accelerated node and a system node of the
// runtime's node groups and a namespace for training Pods; it removes them at the end.
func trainingCluster(t *testing.T, p string) (gpuNode, systemNode, ns string) {
	t.Helper()
	ctx := context.Background()
	gpuNode, systemNode, ns = p+"-gpu-0", p+"-system-0", p+"-training"
	objs := []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: gpuNode, Labels: map[string]string{"example.com/pool": "gpu"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: systemNode, Labels: map[string]string{"example.com/pool": "system"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
	}
	for _, o := range objs {
		require.NoError(t, k8s.Create(ctx, o))
	}
	t.Cleanup(func() {
		for _, o := range objs {
			_ = k8s.Delete(context.Background(), o)
		}
	})
	return gpuNode, systemNode, ns
}

// runPod creates a Pod bound to node (no scheduler or kubelet runs: its phase stays Pending,
// which counts as running until it finishes).
func runPod(t *testing.T, ns, name, node string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "train", Image: "trainer"}}},
	}
	require.NoError(t, k8s.Create(context.Background(), pod))
	return pod
}

// finishPod records that pod's containers exited, as the kubelet would.
func finishPod(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	pod.Status.Phase = corev1.PodSucceeded
	require.NoError(t, k8s.Status().Update(context.Background(), pod))
}

// protectTraining protects the Pods labelled app=train in ns.
func protectTraining(ns string) func(cr *aicrv1alpha1.ClusterRuntime) {
	return func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Spec.ChangePolicy.ProtectedWorkloads = &aicrv1alpha1.ProtectedWorkloads{
			PodSelector: aicrv1alpha1.PodSelector{MatchLabels: map[string]aicrv1alpha1.LabelValue{"app": "train"}},
			Namespaces:  []aicrv1alpha1.NamespaceName{aicrv1alpha1.NamespaceName(ns)},
		}
	}
}

// firstDisruptive returns the index of the rollout's first disruptive step; it requires one
// and that every step naming node-level agents is one.
func firstDisruptive(t *testing.T, ro *aicrv1alpha1.RuntimeRollout) int {
	t.Helper()
	first := -1
	for i, s := range ro.Spec.Steps {
		if s.Disruption != "" && first < 0 {
			first = i
		}
		if s.Release == "gpu-operator" && s.Operation != aicrv1alpha1.OperationVerify {
			assert.Contains(t, s.Disruption, "runs node-level agents on the accelerated nodes", "gpu-operator is disruptive")
		}
		if s.Release == "cert-manager" {
			assert.Empty(t, s.Disruption, "cert-manager runs on the system nodes only")
		}
	}
	require.GreaterOrEqual(t, first, 0, "the rollout has a disruptive step")
	return first
}

// waitHeld waits until the rollout's step index is held by protected workloads and returns
// the Stalled condition that says so.
func (h *harness) waitHeld(name string, index int) metav1.Condition {
	h.t.Helper()
	var held metav1.Condition
	require.Eventually(h.t, func() bool {
		ro := h.rollout(name)
		c := findCondition(ro.Status.Conditions, aicrv1alpha1.ConditionStalled)
		if c == nil || c.Reason != string(domain.StallProtectedWorkloadsRunning) || int(ro.Status.CurrentStep) != index+1 {
			return false
		}
		held = *c
		return true
	}, waitFor, tick)
	return held
}

// A training Pod on an accelerated node holds the upgrade's first disruptive step while the
// system-only steps before it proceed; a labelled Pod on a system node or an unlabelled one on
// the accelerated node does not. The Pod finishing lets the step go.
func TestRolloutProtectedWorkloadHoldsADisruptiveUpgradeStep(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	gpuNode, systemNode, ns := trainingCluster(t, "hold")
	uid, _ := h.installed(protectTraining(ns))
	train := runPod(t, ns, "train-0", gpuNode, map[string]string{"app": "train"})
	runPod(t, ns, "train-on-system", systemNode, map[string]string{"app": "train"})
	runPod(t, ns, "other-on-gpu", gpuNode, map[string]string{"app": "serve"})

	_, ro := h.upgrade(uid)
	index := firstDisruptive(t, ro)
	step := ro.Spec.Steps[index]
	h.approve(ro.Name, epoch.Add(30*time.Minute))
	held := h.waitHeld(ro.Name, index)
	assert.Contains(t, held.Message, "waits for protected workloads on the accelerated nodes: "+ns+"/train-0 on "+gpuNode+
		"; it may disrupt them: ")
	assert.NotContains(t, held.Message, "train-on-system")
	assert.NotContains(t, held.Message, "other-on-gpu")

	live := h.rollout(ro.Name)
	states := map[string]aicrv1alpha1.ReleaseState{}
	for _, r := range live.Status.Releases {
		states[r.Release] = r.State
	}
	for _, s := range ro.Spec.Steps[:index] {
		want := aicrv1alpha1.ReleaseReady
		if s.Operation == aicrv1alpha1.OperationRemove {
			want = aicrv1alpha1.ReleaseRemoved
		}
		assert.Equal(t, want, states[s.Release], "the system-only step %s went ahead", s.Release)
	}
	assert.NotEqual(t, ro.Spec.ToPlanDigest, h.liveReleases()[step.Release].Owner.PlanDigest, "the held step wrote nothing")
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, held.Message)
	assert.Nil(t, findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled),
		"a held step waits: the runtime is not stalled")

	finishPod(t, train)
	h.acknowledgeDRARestart(ro.Name)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
}

// An approver's override lets the disruptive steps go while the training Pod runs, and the
// evidence of the validated rollout records each override.
func TestRolloutDisruptionOverrideLetsTheStepGoAndIsEvidence(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	gpuNode, _, ns := trainingCluster(t, "override")
	runPod(t, ns, "train-0", gpuNode, map[string]string{"app": "train"})
	uid := h.createRuntime(func(cr *aicrv1alpha1.ClusterRuntime) {
		protectTraining(ns)(cr)
		validationRequired(cr)
	})
	h.setCandidate(h.writePlan(h.fixturePlan(fixtureInstall, uid)), metav1.Condition{})
	ro := h.waitRollout(1)
	index := firstDisruptive(t, ro)
	h.waitHeld(ro.Name, index)

	var overrides []any
	var want []ports.EvidenceOverride
	at := epoch.Add(time.Minute)
	for _, s := range ro.Spec.Steps {
		if s.Disruption != "" {
			overrides = append(overrides, map[string]any{"release": s.Release, "overriddenBy": approver,
				"overriddenAt": at.Format(time.RFC3339), "reason": "job checkpointed"})
			want = append(want, ports.EvidenceOverride{Release: s.Release, OverriddenBy: approver, OverriddenAt: at,
				Reason: "job checkpointed"})
		}
	}
	h.patchApproval(ro.Name, map[string]any{"disruptionOverrides": overrides})
	ro = h.waitPhase(ro.Name, aicrv1alpha1.PhaseValidating)
	h.waitEvent(string(ro.UID), corev1.EventTypeNormal, domain.EventStepStarted.String(),
		"started, let go by "+approver+" outside the change policy: job checkpointed")
	h.jobs.finish(ro.Status.ValidationRun, ports.JobSucceeded, "", ctrfReport(t, "validate-deployment-passed.ctrf.json"))
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	ev, ok := h.registry.pushed(ports.Digest(done.Annotations[aicrv1alpha1.AnnotationEvidence]))
	require.True(t, ok)
	for i := range ev.DisruptionOverrides {
		ev.DisruptionOverrides[i].OverriddenAt = ev.DisruptionOverrides[i].OverriddenAt.UTC()
	}
	assert.Equal(t, want, ev.DisruptionOverrides)
}
