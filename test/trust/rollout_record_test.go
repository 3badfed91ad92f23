package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// garbageCollectorUser is kube-controller-manager's garbage collector, whose bootstrap role
// deletes anything.
const garbageCollectorUser = "system:serviceaccount:kube-system:generic-garbage-collector"

// installedRollout is the baseline's initial install: the record of what is live and approved.
func (w *world) installedRollout(t *testing.T) *aicrv1alpha1.RuntimeRollout {
	t.Helper()
	ro, err := waitRollout(context.Background(), func(ro *aicrv1alpha1.RuntimeRollout) bool {
		return ro.Spec.FromPlanDigest == "" && ro.Spec.ToPlanDigest == w.active
	})
	require.NoError(t, err)
	return ro
}

// TestAttack_ClusterAdminDeletesTheActiveRollout: deleting the rollout of the active plan would
// make the next transition an unapproved initial install over every live release. Argo CD's
// controller holds cluster-admin, as any cluster administrator does.
func TestAttack_ClusterAdminDeletesTheActiveRollout(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ro := w.installedRollout(t)
	refused(t, argoCD().Delete(context.Background(), ro), "RO-14: only the operator deletes RuntimeRollouts")
	require.Equal(t, ro.UID, liveRollout(t, ro.Name).UID, "the rollout is still there")
}

// TestAttack_GarbageCollectorDeletesARollout: the garbage collector deletes what it believes
// dependent; it never deletes a rollout.
func TestAttack_GarbageCollectorDeletesARollout(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	gc := as(garbageCollectorUser, "system:serviceaccounts", "system:serviceaccounts:kube-system")
	refused(t, gc.Delete(context.Background(), w.installedRollout(t)), "RO-14: only the operator deletes RuntimeRollouts")
}

// TestAttack_ApproverGivesARolloutAnOwner: an approver, who may patch rollouts, makes one a
// dependent of a ConfigMap it can delete, so the garbage collector deletes the rollout with it.
func TestAttack_ApproverGivesARolloutAnOwner(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ro := w.installedRollout(t)
	patch := `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"doomed","uid":"0b7f4d8e-1c1a-4c1e-9e4e-3f0a8c7d2b11"}]}}`
	err := as(approverUser).Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch)))
	refused(t, err, "PLAT-7: a RuntimeRollout carries no ownerReferences")
	require.Empty(t, liveRollout(t, ro.Name).OwnerReferences)
}

// TestOperatorDeletesARollout is the rule's other side: the operator's retention still
// may (a dry run, so the baseline keeps its record).
func TestOperatorDeletesARollout(t *testing.T) {
	w := baseline(t)
	ro := w.installedRollout(t)
	op := as(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
	require.NoError(t, op.Delete(context.Background(), ro, client.DryRunAll))
}
