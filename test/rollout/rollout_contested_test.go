package rollout_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// otherWriter is the field manager of the controller that changes the Application back.
const otherWriter = "policy-controller"

// On the Argo CD engine a controller that changes an Application back after every write of the
// operator (a Helm parameter, under its own field manager) gets domain.StepRewriteBound
// rewrites of it; then the rollout stalls EngineObjectContested naming the Application and that
// field manager, writes it no more, and fails at the step's timeout.
func TestArgoCDContestedApplicationStallsTheRollout(t *testing.T) {
	h := newHarness(t, true)
	h.withArgo()
	h.start()
	uid := h.createRuntime(nil)
	h.waitCondition(aicrv1alpha1.ConditionEngineAvailable, metav1.ConditionTrue, "EngineReady", "")
	plan := h.fixturePlan(fixtureInstall, uid)

	var mu sync.Mutex
	contested, writes := "", 0
	h.argo.onWrite(func(ctx context.Context) {
		mu.Lock()
		defer mu.Unlock()
		var apps argov1.ApplicationList
		assert.NoError(t, k8s.List(ctx, &apps, client.InNamespace(argocd.DefaultNamespace)))
		if contested == "" && len(apps.Items) > 0 {
			contested = apps.Items[0].Name
		}
		writes++
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Name: contested, Namespace: argocd.DefaultNamespace}}
		patch := fmt.Sprintf(`{"spec":{"source":{"helm":{"parameters":[{"name":"policy","value":"enforced-%d"}]}}}}`, writes)
		assert.NoError(t, k8s.Patch(ctx, app, client.RawPatch(types.MergePatchType, []byte(patch)),
			client.FieldOwner(otherWriter)), "the other writer changes the Application back")
	})
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)

	var stalled *metav1.Condition
	require.Eventually(t, func() bool {
		stalled = meta.FindStatusCondition(h.rollout(ro.Name).Status.Conditions, "Stalled")
		return stalled != nil && stalled.Reason == string(domain.StallEngineObjectContested)
	}, waitFor, tick, "the rollout stalls EngineObjectContested")
	mu.Lock()
	name := contested
	mu.Unlock()
	assert.Contains(t, stalled.Message, "Application "+argocd.DefaultNamespace+"/"+name+" was changed by "+otherWriter)
	assert.Equal(t, int64(1+domain.StepRewriteBound), h.argo.writes.Load(), "one write and StepRewriteBound rewrites")

	h.clock.Step(domain.DefaultActionTimeout + time.Minute)
	failed := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
	assert.Contains(t, failed.Status.Message, "not ready within 15m0s")
	assert.Equal(t, int64(1+domain.StepRewriteBound), h.argo.writes.Load(), "no write after the stall")
}
