package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// TestPlanUsedOnlyAsResolved: a plan ConfigMap whose releases do not hash to the digest it
// records (its labels and annotation consistent, as whoever got around the chart's plans
// policy would write them) is never rolled out: the operator recomputes desiredStateDigest on
// read and stalls PlanUnreadable, with no rollout and no engine write (issue "trust chain",
// PLAN-4, PLAN-6).
func TestPlanUsedOnlyAsResolved(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	uid := h.createRuntime(nil)
	plan := h.fixturePlan(fixtureInstall, uid)
	h.writePlanDoc(plan, func(doc *configdoc.Plan) {
		doc.Releases[0].Namespace = "elsewhere" // what the digest covers, changed after the fact
	})
	h.setCandidate(plan.Digest, metav1.Condition{})
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallPlanUnreadable), "")
	stalled := findCondition(h.runtime().Status.Conditions, aicrv1alpha1.ConditionStalled)
	assert.Contains(t, stalled.Message, "plan "+plan.Digest+": its releases and values hash to ")
	assert.Empty(t, h.rollouts(), "no rollout toward a plan that is not as resolved")
	assert.Zero(t, h.engine.WriteCount())
}
