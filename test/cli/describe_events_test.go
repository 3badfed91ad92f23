package cli_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDescribe_ShowsTheRolloutsEvents: an approver's describe lists the Events the API server
// keeps for the rollout in the default namespace (the chart's events Role lets approvers list
// them), selected by the rollout's kind and name, and not another rollout's.
func TestDescribe_ShowsTheRolloutsEvents(t *testing.T) {
	needEnv(t)
	t.Parallel()
	name := fixture{ro: rolloutObject("rollout-3f9a1c0d2b7e4a51-9")}.create(t)
	t.Cleanup(func() { deleteRollout(t, name) })
	ctx := context.Background()
	admin := clientFor(testEnv.Config)
	at := metav1.NewTime(time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC))
	for _, e := range []*corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Name: name + ".started", Namespace: metav1.NamespaceDefault},
			InvolvedObject: corev1.ObjectReference{APIVersion: "operator.aicr.run/v1alpha1", Kind: "RuntimeRollout", Name: name},
			Type:           corev1.EventTypeNormal, Reason: "StepStarted", Message: "step 1/3 gpu-operator (Upgrade) started",
			FirstTimestamp: at, LastTimestamp: at, Count: 1},
		{ObjectMeta: metav1.ObjectMeta{Name: name + ".other", Namespace: metav1.NamespaceDefault},
			InvolvedObject: corev1.ObjectReference{APIVersion: "operator.aicr.run/v1alpha1", Kind: "RuntimeRollout",
				Name: "rollout-0000000000000000-9"},
			Type: corev1.EventTypeNormal, Reason: "StepStarted", Message: "another rollout's step",
			FirstTimestamp: at, LastTimestamp: at, Count: 1},
	} {
		require.NoError(t, admin.Create(ctx, e))
		t.Cleanup(func() { _ = admin.Delete(ctx, e) })
	}

	r := run(approverUser, "describe", name)

	requireOK(t, r)
	assert.Regexp(t, `\nEvents \(newest 10 at most\):\n\s+Type\s+Reason\s+Last seen\s+Count\s+Message\n`+
		`\s+Normal\s+StepStarted\s+2029-06-01T12:00:00Z\s+1\s+step 1/3 gpu-operator \(Upgrade\) started\n$`, r.stdout)
	assert.NotContains(t, r.stdout, "another rollout's step")
	assert.Empty(t, r.stderr)
}
