package faults_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nvidia/aicr-operator/adapters/argocd"
	argov1 "github.com/nvidia/aicr-operator/adapters/argocd/api/v1alpha1"
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
