package faults_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestApplicationDeletedWhileItsStepRuns: a cluster administrator deletes the Application of
// the step in flight right after the operator created it. The Install step's mutation is no
// longer made, so the operator's next reconcile makes it again (RO-7, RO-12): the Application
// is created once more, the rollout succeeds, and no other Application is touched.
func TestApplicationDeletedWhileItsStepRuns(t *testing.T) {
	base := baseline(t)
	w := newWorld(t)
	deleted := make(chan string, 1)
	w.faults.onWrite(&hook{verb: "create", resource: "applications", namespace: argocd.DefaultNamespace, run: func(x write) {
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: x.namespace, Name: x.name}}
		if err := k8s.Delete(context.Background(), app); err != nil {
			t.Errorf("delete %s by hand: %v", x.name, err)
		}
		deleted <- x.name
	}})
	w.start("operator", processOptions{})
	uid := w.createRuntime()
	w.waitInstalled(base.digest)
	assertInstalled(t, base.digest, uid)
	name := <-deleted
	writes := w.faults.recorded()
	shapes, twice := created(writes)
	assert.Equal(t, base.creates, shapes, "the objects of the run without a fault, no other")
	assert.Equal(t, []string{"applications " + argocd.DefaultNamespace + "/" + name}, twice, "only the Application deleted by hand is created twice")
	recreated, others := 0, 0
	for _, x := range writes {
		switch {
		case x.resource != "applications" || x.code < 200 || x.code > 299:
		case x.name == name && x.verb == "create":
			recreated++
		case x.verb != "create":
			others++
		}
	}
	assert.Equal(t, 2, recreated, "the Application deleted by hand is created again, once")
	assert.Zero(t, others, "no Application is updated, patched or deleted")
}

// TestApplicationDeletedWhileItsUpgradeRuns: a cluster administrator deletes the Application the
// first step of an approved transition (a Verify, the Upgrade's kin) just patched. It is not recreated from the plan (RO-7, RO-13): the
// rollout stalls MovedReleaseMissing with a message naming the release and what to do, and
// no Application is written after the deletion.
func TestApplicationDeletedWhileItsUpgradeRuns(t *testing.T) {
	base := baseline(t)
	tr := transition(t, base)
	w := newWorld(t)
	w.start("operator", processOptions{})
	w.createRuntime()
	w.waitInstalled(base.digest)
	w.override()
	name := w.waitTransition(base.digest, tr.digest)
	type deletion struct {
		app  string
		mark int
	}
	deleted := make(chan deletion, 1)
	w.faults.onWrite(&hook{verb: "patch", resource: "applications", namespace: argocd.DefaultNamespace, run: func(x write) {
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: x.namespace, Name: x.name}}
		if err := k8s.Delete(context.Background(), app); err != nil {
			t.Errorf("delete %s by hand: %v", x.name, err)
		}
		deleted <- deletion{app: x.name, mark: len(w.faults.recorded())}
	}})
	w.approve(name)
	var stalled *metav1.Condition
	require.Eventually(t, func() bool {
		ro := &aicrv1alpha1.RuntimeRollout{}
		if k8s.Get(context.Background(), client.ObjectKey{Name: name}, ro) != nil {
			return false
		}
		stalled = meta.FindStatusCondition(ro.Status.Conditions, "Stalled")
		return stalled != nil && stalled.Status == metav1.ConditionTrue && stalled.Reason != "AwaitingApproval"
	}, waitFor, tick, "the rollout stalls")
	d := <-deleted
	assert.Equal(t, "MovedReleaseMissing", stalled.Reason)
	assert.Contains(t, stalled.Message, strings.Replace(d.app, ".", "/", 1), "the message names the release")
	assert.Contains(t, stalled.Message, "restore", "the message says what to do")
	for _, x := range w.faults.recorded()[d.mark:] {
		if x.resource == "applications" {
			t.Errorf("an Application was written after the deletion: %+v", x)
		}
	}
}
