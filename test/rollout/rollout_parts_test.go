package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
)

// TestRolloutPlanParts_ProceedsOnceALostPartIsRebuilt: the target plan's values or validation
// recipe ConfigMap was lost, so the runtime stalls PlanUnreadable or the rollout
// PlanWithoutRecipe; once the resolver's plan writer rebuilds it (planstore.Writer.WriteParts,
// what the resolver writes after proving it), the runtime and the rollout read the plan again
// and the rollout proceeds, without any other change.
func TestRolloutPlanParts_ProceedsOnceALostPartIsRebuilt(t *testing.T) {
	for _, tc := range []struct {
		name string
		// lose deletes the part of doc and returns what rebuilds it.
		lose func(h *harness, p *domain.Plan, doc *configdoc.Plan) planstore.PartsWrite
		// stalled waits for the stall the lost part of doc causes.
		stalled func(h *harness, doc *configdoc.Plan)
		// then is the phase the rollout reaches once the part is back (Validating: every step ran).
		then aicrv1alpha1.Phase
	}{
		{"Values", func(h *harness, p *domain.Plan, doc *configdoc.Plan) planstore.PartsWrite {
			deleteConfigMap(h, doc.ValuesRefs[0].Name)
			return planstore.PartsWrite{Doc: doc, Values: p.Releases}
		}, func(h *harness, doc *configdoc.Plan) {
			h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, string(domain.StallPlanUnreadable),
				"plan "+doc.Digest+": values ConfigMap "+operatorNamespace+"/"+doc.ValuesRefs[0].Name+" not found")
			assert.Empty(h.t, h.rollouts(), "no rollout starts")
		}, aicrv1alpha1.PhaseValidating},
		{"ValidationRecipe", func(h *harness, p *domain.Plan, doc *configdoc.Plan) planstore.PartsWrite {
			deleteConfigMap(h, doc.ValidationConfigMapRef.Name)
			return planstore.PartsWrite{Doc: doc, Recipes: map[string][]byte{doc.ValidationConfigMapRef.Name: []byte(recipe(p.Digest, "validation"))}}
		}, func(h *harness, _ *configdoc.Plan) {
			ro := h.waitRollout(1)
			h.seen[ro.Name] = false
			require.Eventually(h.t, func() bool {
				c := findCondition(h.rollout(ro.Name).Status.Conditions, "Stalled")
				return c != nil && c.Reason == string(domain.StallPlanWithoutRecipe)
			}, waitFor, tick)
			assert.Zero(h.t, h.engine.WriteCount(), "no step runs")
		}, aicrv1alpha1.PhaseValidating},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, true)
			h.start()
			uid := h.createRuntime(validationRequired)
			plan := h.fixturePlan(fixtureInstall, uid)
			digest := h.writePlan(plan)
			name, err := configdoc.PlanConfigMapName(digest)
			require.NoError(t, err)
			stored := &corev1.ConfigMap{}
			require.NoError(t, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: name}, stored))
			doc, err := configdoc.DecodePlan([]byte(stored.Data[configdoc.PlanKey]))
			require.NoError(t, err)
			w := tc.lose(h, plan, doc)
			h.setCandidate(digest, metav1.Condition{})
			tc.stalled(h, doc)

			writer := &planstore.Writer{Client: k8s, Reader: k8s, Recorder: record.NewFakeRecorder(8), Namespace: operatorNamespace}
			stall, err := writer.WriteParts(context.Background(), h.runtime(), w)
			require.NoError(t, err)
			require.Nil(t, stall)
			ro := h.waitRollout(1)
			h.waitPhase(ro.Name, tc.then)
			assert.Len(t, h.rollouts(), 1)
		})
	}
}

func deleteConfigMap(h *harness, name string) {
	h.t.Helper()
	require.NoError(h.t, k8s.Delete(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNamespace}}))
}
