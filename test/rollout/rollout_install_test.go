package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// kstatusOf computes kstatus on the live ClusterRuntime as an unstructured object (OPS-3).
func (h *harness) kstatusOf() status.Status {
	h.t.Helper()
	cr := h.runtime()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cr)
	require.NoError(h.t, err)
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	require.NoError(h.t, err)
	return res.Status
}

func (h *harness) waitKstatus(want status.Status) {
	h.t.Helper()
	var got status.Status
	require.Eventually(h.t, func() bool { got = h.kstatusOf(); return got == want }, waitFor, tick, "kstatus %s, want %s", got, want)
}

// An initial install runs one Install step per release in the plan's order; Ready names the
// step in flight, kstatus is InProgress while rolling out and Current once rolled out
// (RO-1, RO-7, CR-8, OPS-3). On both engines: the Argo CD one reads through a cache.
func TestRolloutInitialInstall(t *testing.T) {
	onEachEngine(t, false, testRolloutInitialInstall)
}

func testRolloutInitialInstall(t *testing.T, h *harness) {
	h.start()
	h.createRuntime(nil)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonNoActivePlan, "no plan is rolled out yet")
	uid := string(h.runtime().UID)
	plan := h.fixturePlan(fixtureInstall, uid)
	digest := h.writePlan(plan)
	h.setCandidate(digest, metav1.Condition{})

	ro := h.waitRollout(1)
	assert.Equal(t, domain.RolloutName(domain.TransitionID(uid, "", digest), 1), ro.Name)
	assert.Equal(t, digest, ro.Spec.ToPlanDigest)
	assert.Empty(t, ro.Spec.FromPlanDigest)
	assert.False(t, ro.Spec.ApprovalRequired)
	require.Len(t, ro.Spec.Steps, len(plan.Releases))
	order, err := domain.PlanTransition(domain.TransitionInput{Target: plan})
	require.NoError(t, err)
	for i, s := range ro.Spec.Steps {
		assert.Equal(t, aicrv1alpha1.OperationInstall, s.Operation)
		assert.Equal(t, order.Steps[i].Release.ID, s.Release, "step %d", i+1)
	}
	first := ro.Spec.Steps[0]
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut,
		domain.StepMessage(ro.Name, 0, len(ro.Spec.Steps), domain.Step{Release: releaseRef(first.Release), Operation: domain.OpInstall}))
	h.waitCondition(aicrv1alpha1.ConditionReconciling, metav1.ConditionTrue, domain.ReasonRollingOut, "")
	h.waitKstatus(status.InProgressStatus)
	// The runtime may report the step before its engine write lands; wait for the write, then
	// check the second step has not begun while the first release is not ready.
	require.Eventually(t, func() bool { return len(h.liveReleases()) > 0 }, waitFor, tick, "the first step writes its release")
	h.waitReleaseState(ro.Name, first.Release, "InFlight")
	assert.Len(t, h.liveReleases(), 1, "the next step waits for the first release to be ready")

	h.world.setInstant(true)
	h.world.settle(t)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled,
		"plan "+digest+" rolled out, validation disabled")
	h.waitCondition(aicrv1alpha1.ConditionAvailable, metav1.ConditionTrue, "ReleasesHealthy", "")
	h.waitKstatus(status.CurrentStatus)
	cr := h.runtime()
	assert.Equal(t, digest, cr.Status.ActivePlanDigest)
	assert.Equal(t, digest, cr.Status.TargetPlanDigest)
	assert.Equal(t, ro.Name, cr.Status.Rollout)
	assert.Equal(t, len(plan.Releases), h.world.writeCount(), "one engine write per step")
	for _, rel := range plan.Releases {
		st, ok := h.liveReleases()[rel.ID]
		require.True(t, ok, rel.ID)
		assert.Equal(t, digest, st.Owner.PlanDigest)
		assert.Equal(t, uid, st.Owner.RuntimeUID)
	}
	resolved := findCondition(cr.Status.Conditions, aicrv1alpha1.ConditionResolved)
	require.NotNil(t, resolved, "the resolver's condition survives (CR-7)")
	assert.Equal(t, "Resolved", resolved.Reason)
	assertFieldManagers(t, cr)
}

// assertFieldManagers checks that aicr-rollout owns no Resolved entry (CR-7).
func assertFieldManagers(t *testing.T, cr *aicrv1alpha1.ClusterRuntime) {
	t.Helper()
	for _, mf := range cr.ManagedFields {
		if mf.Manager != "aicr-rollout" || mf.FieldsV1 == nil {
			continue
		}
		assert.NotContains(t, mf.FieldsV1.GetRawString(), `"k:{\"type\":\"Resolved\"}"`)
	}
}

// TestRolloutInitialInstallWithOverrides: a plan rendered with an override of one of its
// releases is installed only with an approval, unless the runtime's approvalPolicy waives
// that for its initial install (RO-8).
func TestRolloutInitialInstallWithOverrides(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy aicrv1alpha1.OverrideApproval
		want   bool
	}{
		{"required by default", "", true},
		{"waived for the initial install", aicrv1alpha1.OverrideApprovalWaived, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, false)
			h.start()
			h.createRuntime(func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.ApprovalPolicy.InitialInstallOverrides = tc.policy })
			plan := h.fixturePlan(fixtureInstall, string(h.runtime().UID))
			digest := h.writePlanDoc(plan, func(doc *configdoc.Plan) {
				doc.RenderFlags = []string{"--set-json", `gpu-operator:driver.version="580.95.05"`}
			})
			h.setCandidate(digest, metav1.Condition{})
			ro := h.waitRollout(1)
			assert.Equal(t, tc.want, ro.Spec.ApprovalRequired)
		})
	}
}
