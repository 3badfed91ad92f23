package faults_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// transitionBoundaries are the resolver's stage boundaries of a transition (an override on an
// installed runtime): the snapshot and recipe are reused, the bundle renders again and
// upgrade-check compares the recipes before the plan is written.
var transitionBoundaries = []boundary{
	{"bundle Job created", "create", "jobs", jobNS, "aicr-bundle-"},
	{"upgrade-check Job created", "create", "jobs", jobNS, "aicr-upgrade-check-"},
	{"assessment written", "create", "configmaps", operatorNS, "aicr-assessment-"},
	{"plan written, status not yet", "create", "configmaps", operatorNS, "aicr-plan-"},
	{"upgrade-check Job deleted", "delete", "jobs", jobNS, "aicr-upgrade-check-"},
}

var (
	transitionOnce     sync.Once
	transitionBaseline run
)

// transition runs an install and then a transition without a fault once, approves its
// rollout, and returns what the transition ended with (the objects it created after the install).
func transition(t *testing.T, base run) run {
	t.Helper()
	transitionOnce.Do(func() {
		w := newWorld(t)
		w.start("operator", processOptions{})
		w.createRuntime()
		w.waitInstalled(base.digest)
		mark := len(w.faults.recorded())
		w.override()
		var digest string
		require.Eventually(t, func() bool {
			digest = liveRuntime(t).Status.CandidatePlanDigest
			return digest != base.digest
		}, waitFor, tick, "the override resolves to a new plan")
		w.upgrade(base.digest, digest)
		creates, twice := created(w.faults.recorded()[mark:])
		require.Empty(t, twice, "the transition without a fault creates nothing twice")
		transitionBaseline = run{digest: digest, creates: creates}
		w.close()
	})
	require.NotEmpty(t, transitionBaseline.digest, "the transition without a fault")
	return transitionBaseline
}

// TestKillAtTransitionBoundary stops the operator right after each stage boundary of a
// transition and starts a new one: it resolves the plan of the transition without a fault,
// creates its rollout once, rolls it out once approved and writes every stage's Job and
// result once (RES-1, RES-7, PLAN-5).
func TestKillAtTransitionBoundary(t *testing.T) {
	base := baseline(t)
	tr := transition(t, base)
	for _, b := range transitionBoundaries {
		t.Run(b.name, func(t *testing.T) {
			w := newWorld(t)
			first := w.start("operator-1", processOptions{})
			w.createRuntime()
			w.waitInstalled(base.digest)
			mark := len(w.faults.recorded())
			killed := make(chan write, 1)
			w.faults.onWrite(&hook{verb: b.verb, resource: b.resource, namespace: b.namespace, match: func(name string) bool {
				return strings.HasPrefix(name, b.prefix)
			}, run: func(x write) {
				first.cancel()
				killed <- x
			}})
			w.override()
			select {
			case <-killed:
			case <-time.After(waitFor):
				require.FailNow(t, "the boundary was never reached")
			}
			first.stop()
			w.start("operator-2", processOptions{})
			w.upgrade(base.digest, tr.digest)
			writes := w.faults.recorded()
			_, twice := created(writes)
			assert.Empty(t, twice, "objects created twice")
			shapes, _ := created(writes[mark:])
			assert.Equal(t, tr.creates, shapes, "the objects the transition without a fault creates, each once")
		})
	}
}

// override sets gpu-operator's driver.version as the runtime's editor would.
func (w *world) override() {
	w.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"overrides":[{"component":"gpu-operator","path":"driver.version","value":%q}]}}`, overrideValue)
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName}}
	require.NoError(w.t, k8s.Patch(context.Background(), cr, client.RawPatch("application/merge-patch+json", []byte(patch))))
}

// waitTransition waits until the runtime's candidate is to and one rollout from the active
// plan from to to exists next to the install's, waiting for its approver, and returns its name.
func (w *world) waitTransition(from, to string) string {
	w.t.Helper()
	var name string
	require.Eventually(w.t, func() bool {
		if liveRuntime(w.t).Status.CandidatePlanDigest != to {
			return false
		}
		var list aicrv1alpha1.RuntimeRolloutList
		if k8s.List(context.Background(), &list) != nil || len(list.Items) != 2 {
			return false
		}
		for _, ro := range list.Items {
			if ro.Spec.FromPlanDigest == from && ro.Spec.ToPlanDigest == to && ro.Status.Phase == aicrv1alpha1.PhaseAwaitingApproval {
				name = ro.Name
				return true
			}
		}
		return false
	}, waitFor, tick, "the transition %s -> %s resolved and its rollout awaits approval", from, to)
	return name
}

// upgrade waits for the transition from -> to, approves its rollout, acknowledges the DRA
// kubelet plugin's restart and waits until it succeeded and to is the runtime's active plan.
func (w *world) upgrade(from, to string) {
	w.t.Helper()
	name := w.waitTransition(from, to)
	w.approve(name)
	w.acknowledgeDRARestart(name)
	require.Eventually(w.t, func() bool {
		live := &aicrv1alpha1.RuntimeRollout{}
		return k8s.Get(context.Background(), client.ObjectKey{Name: name}, live) == nil &&
			live.Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded) &&
			liveRuntime(w.t).Status.ActivePlanDigest == to
	}, waitFor, tick, "the approved rollout %s succeeded", name)
}

// approve approves the rollout name for an hour of the fake clock.
func (w *world) approve(name string) {
	w.t.Helper()
	w.patchApproval(name, fmt.Sprintf(`{"approvedBy":"alice@example.com","reason":"change window","expiresAt":%q}`,
		w.clock.Now().Add(time.Hour).Format(time.RFC3339)))
}

// acknowledgeDRARestart waits for the rollout name to pause before the DRA driver's step, which
// the GPU Operator's upgrade makes wait for its kubelet plugin's restart, and acknowledges it.
func (w *world) acknowledgeDRARestart(name string) {
	w.t.Helper()
	require.Eventually(w.t, func() bool {
		live := &aicrv1alpha1.RuntimeRollout{}
		return k8s.Get(context.Background(), client.ObjectKey{Name: name}, live) == nil &&
			live.Status.Phase == aicrv1alpha1.PhaseAwaitingAcknowledgement
	}, waitFor, tick, "the rollout %s pauses before the DRA driver's step", name)
	w.patchApproval(name, fmt.Sprintf(`{"acknowledgements":[{"release":"nvidia-dra-driver-gpu",`+
		`"acknowledgedBy":"alice@example.com","acknowledgedAt":%q}]}`, w.clock.Now().Format(time.RFC3339)))
}

// patchApproval merge-patches the spec.approval of the rollout name with approval.
func (w *world) patchApproval(name, approval string) {
	w.t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	patch := `{"spec":{"approval":` + approval + `}}`
	require.NoError(w.t, k8s.Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch))))
}

// liveRuntime reads the ClusterRuntime.
func liveRuntime(t *testing.T) *aicrv1alpha1.ClusterRuntime {
	t.Helper()
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr))
	return cr
}

// transitionPaths are the write paths only a transition goes through.
var transitionPaths = []writePath{
	{name: "upgrade-check Job", verb: "create", resource: "jobs", namespace: jobNS, prefix: "aicr-upgrade-check-"},
	{name: "assessment ConfigMap", verb: "create", resource: "configmaps", namespace: operatorNS, prefix: "aicr-assessment-"},
	{name: "Application upgrade", verb: "patch", resource: "applications"},
}

// TestTransitionWriteFaults injects each fault once into each write path only a transition
// has, after the install: the transition resolves the plan of the transition without a fault,
// its approved rollout succeeds, and no object is created twice.
func TestTransitionWriteFaults(t *testing.T) {
	base := baseline(t)
	tr := transition(t, base)
	for _, p := range transitionPaths {
		for _, kind := range faultsOf(p) {
			t.Run(p.name+"/"+string(kind), func(t *testing.T) {
				w := newWorld(t)
				w.start("operator", processOptions{})
				w.createRuntime()
				w.waitInstalled(base.digest)
				mark := len(w.faults.recorded())
				r := &rule{verb: p.verb, resource: p.resource, namespace: p.namespace, match: p.match, fault: kind, times: 1}
				w.faults.inject(r)
				w.override()
				w.upgrade(base.digest, tr.digest)
				require.Equal(t, 1, w.faults.firedCount(r), "the fault was injected")
				writes := w.faults.recorded()
				_, twice := created(writes)
				assert.Empty(t, twice, "objects created twice")
				shapes, _ := created(writes[mark:])
				assert.Equal(t, tr.creates, shapes, "the objects the transition without a fault creates, each once")
			})
		}
	}
}
