package chart_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestADM5RestoreProcedure follows the documented restore of RuntimeRollouts under another
// identity: delete the aicr-operator-approval binding, restore the rollouts with their
// approval and outcome label, then run helm upgrade (the Helm SDK) with the same values, which
// recreates the binding. Not parallel: it relaxes admission for the whole control plane while
// it runs, and the parallel tests start after it.
func TestADM5RestoreProcedure(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	adm := admin()
	name := fmt.Sprintf("rollout-3f9a1c0d2b7e4a51-restored-%d", rolloutSeq.Add(1))
	backup := rolloutObject(name, func(o *unstructured.Unstructured) {
		withApproval(o)
		labels := o.GetLabels()
		labels[outcome] = "Succeeded"
		o.SetLabels(labels)
		o.SetAnnotations(map[string]string{evidence: "oci://registry.example.com/aicr/evidence@" + digestA})
	})

	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	_, err := adm.dyn.Resource(rolloutGVR).Create(ctx, backup.DeepCopy(), dryRun)
	require.Error(t, err, "with the binding in place a restore is refused")
	assert.Contains(t, err.Error(), "RO-14:")

	// A failure between the steps leaves the operator stopped or the binding deleted, which
	// would let every later test (and every later run under go test -count) bypass the
	// approval policy: put the release back as step 4 does and wait until it is enforced.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		assert.NoError(t, helm.upgrade(suiteValues), "restore the release after a failed restore procedure")
		assert.NoError(t, waitEnforced(ctx), "the policies are enforced again after a failed restore procedure")
	})

	// Step 1: stop the operator.
	deployments := adm.dyn.Resource(deploymentGVR).Namespace(releaseNamespace)
	_, err = deployments.Patch(ctx, "aicr-operator", typeMerge, []byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{})
	require.NoError(t, err)

	// Step 2: delete the binding. The policy itself stays (helm.sh/resource-policy: keep).
	require.NoError(t, adm.dyn.Resource(bindingGVR).Delete(ctx, "aicr-operator-approval", metav1.DeleteOptions{}))

	// Step 3: restore. The API server stops enforcing the deleted binding asynchronously, so
	// retry the create (a refused create writes nothing) until it is accepted.
	var restored *unstructured.Unstructured
	require.NoError(t, eventually(ctx, 30*time.Second, func() bool {
		restored, err = adm.dyn.Resource(rolloutGVR).Create(ctx, backup.DeepCopy(), metav1.CreateOptions{})
		return err == nil
	}), "the restored rollout is accepted once the binding is gone: last error %v", err)
	assert.Equal(t, "Succeeded", restored.GetLabels()[outcome])
	by, _, _ := unstructured.NestedString(restored.Object, "spec", "approval", "approvedBy")
	assert.Equal(t, approverUser, by)

	// Step 4: helm upgrade with the same values recreates the binding (and the replica count).
	require.NoError(t, helm.upgrade(suiteValues))
	_, err = adm.dyn.Resource(bindingGVR).Get(ctx, "aicr-operator-approval", metav1.GetOptions{})
	require.NoError(t, err, "helm upgrade recreates the binding")
	d, err := deployments.Get(ctx, "aicr-operator", metav1.GetOptions{})
	require.NoError(t, err)
	replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	assert.Equal(t, int64(1), replicas, "helm upgrade restores the operator's replica count")

	// The next bypass attempt is refused again, once the recreated binding is enforced.
	require.NoError(t, eventually(ctx, 30*time.Second, func() bool {
		err = createRollout(editor(), withApproval)
		return err != nil && strings.Contains(err.Error(), "RO-14:")
	}), "bypass refused again after the binding is recreated: last error %v", err)
	err = approver().revoke(restored.GetName(), approverUser)
	require.Error(t, err, "a restored rollout with an outcome cannot be revoked")
	assert.Contains(t, err.Error(), "ADM-3:")
}
