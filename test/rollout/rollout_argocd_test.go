package rollout_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// On the Argo CD engine (real adapter, Argo CD's CRDs, simulated application controller) an
// initial install survives a manager kill after every Application write: one Application
// write per step, one Application per release carrying the plan (RO-12, ENG-1, ENG-2).
func TestArgoCDInstallKillAndRestart(t *testing.T) {
	h := newHarness(t, true)
	h.withArgo()
	h.start()
	uid := h.createRuntime(nil)
	h.waitCondition(aicrv1alpha1.ConditionEngineAvailable, metav1.ConditionTrue, "EngineReady", "")
	plan := h.fixturePlan(fixtureInstall, uid)

	wrote := make(chan struct{}, 1)
	h.world.onWrite(func(ctx context.Context) {
		wrote <- struct{}{}
		<-ctx.Done()
	})
	h.setCandidate(h.writePlan(plan), metav1.Condition{})
	ro := h.waitRollout(1)
	for restarts := range len(ro.Spec.Steps) {
		select {
		case <-wrote:
		case <-time.After(waitFor):
			require.FailNow(t, "no Application write", "after %d restarts", restarts)
		}
		h.stop()
		h.start()
	}
	h.world.onWrite(nil)
	h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.Equal(t, int64(len(ro.Spec.Steps)), h.argo.writes.Load(), "one Application write per step")
	var apps argov1.ApplicationList
	require.NoError(t, k8s.List(context.Background(), &apps, client.InNamespace(argocd.DefaultNamespace)))
	require.Len(t, apps.Items, len(plan.Releases))
	for _, app := range apps.Items {
		assert.Equal(t, plan.Digest, app.Annotations[aicrv1alpha1.AnnotationPlanDigest], app.Name)
		assert.Equal(t, uid, app.Annotations[aicrv1alpha1.AnnotationRuntimeUID], app.Name)
		assert.NotContains(t, app.Finalizers, argov1.ResourcesFinalizerName, "ENG-3")
	}
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonValidationDisabled, "")
	h.waitKstatus(status.CurrentStatus)
}
