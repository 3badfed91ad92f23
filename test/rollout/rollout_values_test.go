package rollout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/memengine"
)

// assertEngineHoldsPlanValues checks that every release of plan was applied with the values
// the plan holds, read back from where the plan stores them.
func assertEngineHoldsPlanValues(t *testing.T, h *harness, plan *domain.Plan) {
	t.Helper()
	live := h.liveReleases()
	require.Len(t, live, len(plan.Releases))
	for _, r := range plan.Releases {
		want := memengine.Revision(ports.ReleaseSpec{Ref: r.Ref(), Chart: r.Chart, ContentDigest: r.ContentDigest, Values: r.Values,
			Policy: r.Policy, Owner: ports.ReleaseOwner{RuntimeUID: plan.RuntimeUID, PlanDigest: plan.Digest}})
		assert.Equal(t, want, live[r.ID].DesiredRevision, r.ID)
	}
}

// A plan of schema 2 is rolled out with the values of its values ConfigMap, and a plan an
// operator of schema 1 wrote, values inline, is still read and rolled out (PLAN-1, PLAN-3).
func TestRolloutValues_PLAN1_PLAN3_BothSchemasRollOut(t *testing.T) {
	for name, write := range map[string]func(h *harness, p *domain.Plan) string{
		"schema 2, values ConfigMap": (*harness).writePlan,
		"schema 1, values inline":    (*harness).writePlanSchema1,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, true)
			h.start()
			uid := h.createRuntime(nil)
			plan := h.fixturePlan(fixtureInstall, uid)
			h.setCandidate(write(h, plan), metav1.Condition{})
			ro := h.waitRollout(1)
			h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
			assertEngineHoldsPlanValues(t, h, plan)
		})
	}
}

// A plan whose values ConfigMap is missing, holds other values than the plan records, or that
// records a values reference disagreeing with its valuesDigest is not rolled out: the runtime
// stalls PlanUnreadable and nothing reaches the engine (PLAN-3, PLAN-6).
func TestRolloutValues_PLAN3_PLAN6_UnusableValuesStall(t *testing.T) {
	tests := []struct {
		name string
		// tamper alters the plan once the plan store has written it.
		tamper  func(h *harness, p *domain.Plan)
		message func(p *domain.Plan, v *configdoc.Values) string
	}{
		{"missing values ConfigMap", func(h *harness, p *domain.Plan) {
			h.plans().EditPlan(h.t, p.Digest, func(doc *configdoc.Plan) {
				for i := range doc.ValuesRefs {
					doc.ValuesRefs[i].Name = "aicr-values-0000000000000000"
				}
			})
		}, func(p *domain.Plan, _ *configdoc.Values) string {
			return "plan " + p.Digest + ": values ConfigMap " + operatorNamespace + "/aicr-values-0000000000000000 not found"
		}},
		{"altered values ConfigMap", func(h *harness, p *domain.Plan) {
			h.plans().AlterValues(h.t, p.Digest, func(data map[string]string) { data[p.Releases[0].ID] = `{"altered":true}` })
		}, func(p *domain.Plan, v *configdoc.Values) string {
			r := p.Releases[0]
			return "plan " + p.Digest + ", release " + r.ID + ": values ConfigMap " + v.Name + " holds " +
				configdoc.ContentDigest([]byte(`{"altered":true}`)) + " under " + r.ID + ", the plan records " + r.ValuesDigest +
				": stored values do not match the plan"
		}},
		{"values reference of another digest", func(h *harness, p *domain.Plan) {
			h.plans().EditPlan(h.t, p.Digest, func(doc *configdoc.Plan) { doc.ValuesRefs[0].Digest = "sha256:" + zeros })
		}, func(p *domain.Plan, _ *configdoc.Values) string {
			return "plan " + p.Digest + ", release " + p.Releases[0].ID + ": valuesRef digest sha256:" + zeros +
				" differs from valuesDigest " + p.Releases[0].ValuesDigest + ": stored values do not match the plan"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true)
			h.start()
			uid := h.createRuntime(nil)
			plan := h.fixturePlan(fixtureInstall, uid)
			v, _, err := configdoc.EncodeValues(plan)
			require.NoError(t, err)
			digest := h.writePlan(plan)
			tt.tamper(h, plan)
			h.setCandidate(digest, metav1.Condition{})
			h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallPlanUnreadable), tt.message(plan, v))
			h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallPlanUnreadable), "")
			assert.Empty(t, h.rollouts(), "no rollout starts")
			assert.Zero(t, h.engine.WriteCount(), "nothing reaches the engine")
		})
	}
}
