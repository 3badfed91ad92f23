package chart_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestLegitimatePaths proves the policies leave the intended paths open: the operator creates
// rollouts, writes their status and outcome; approvers approve, revoke and acknowledge.
func TestLegitimatePaths(t *testing.T) {
	t.Parallel()
	needEnv(t)
	t.Run("RO-14 operator creates a rollout and writes its status", func(t *testing.T) {
		t.Parallel()
		name := newRollout(t)
		status := map[string]any{"phase": "AwaitingApproval", "message": "awaiting approval"}
		require.NoError(t, operatorClient().patchStatus(name, status))
		phase, _, _ := unstructured.NestedString(getRollout(t, name).Object, "status", "phase")
		assert.Equal(t, "AwaitingApproval", phase)
	})
	t.Run("ADM-1 ADM-2 approver approves as herself", func(t *testing.T) {
		t.Parallel()
		name := newRollout(t)
		require.NoError(t, approver().approve(name, approverUser))
		by, _, _ := unstructured.NestedString(getRollout(t, name).Object, "spec", "approval", "approvedBy")
		assert.Equal(t, approverUser, by)
	})
	t.Run("ADM-1 ADM-2 member of the approver group approves as himself", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, groupMember().approve(newRollout(t), groupApprover))
	})
	t.Run("ADM-3 approver revokes an approval another approver gave", func(t *testing.T) {
		t.Parallel()
		name := approvedRollout(t)
		require.NoError(t, groupMember().revoke(name, groupApprover))
		by, _, _ := unstructured.NestedString(getRollout(t, name).Object, "spec", "approval", "revokedBy")
		assert.Equal(t, groupApprover, by)
	})
	t.Run("RO-9 ADM-2 approvers acknowledge one release each", func(t *testing.T) {
		t.Parallel()
		name := approvedRollout(t)
		first := [2]string{"gpu-operator", approverUser}
		require.NoError(t, operatorClient().patchStatus(name, map[string]any{"phase": "AwaitingAcknowledgement"}))
		require.NoError(t, approver().acknowledge(name, first))
		require.NoError(t, groupMember().acknowledge(name, first, [2]string{"nvsentinel", groupApprover}))
		acks, _, _ := unstructured.NestedSlice(getRollout(t, name).Object, "spec", "approval", "acknowledgements")
		assert.Len(t, acks, 2)
	})
	t.Run("ADM-2 approvers let disruptive steps go as themselves, one release each", func(t *testing.T) {
		t.Parallel()
		name := newRollout(t)
		first := [2]string{"gpu-operator", approverUser}
		require.NoError(t, approver().override(name, first))
		require.NoError(t, groupMember().override(name, first, [2]string{"nvidia-dra-driver-gpu", groupApprover}))
		got, _, _ := unstructured.NestedSlice(getRollout(t, name).Object, "spec", "approval", "disruptionOverrides")
		assert.Len(t, got, 2)
	})
	t.Run("ADM-2 RO-5 the acknowledgement check fits the CEL budget at 256 acknowledgements", func(t *testing.T) {
		t.Parallel()
		// Each new acknowledgement is compared with every old one by release and
		// acknowledgedBy: 255 old and one new is the largest such request.
		name := approvedRollout(t)
		acks := make([][2]string, 255)
		for i := range acks {
			acks[i] = [2]string{fmt.Sprintf("release-%03d", i), approverUser}
		}
		require.NoError(t, approver().acknowledge(name, acks...))
		require.NoError(t, groupMember().acknowledge(name, append(acks, [2]string{"release-255", groupApprover})...))
		got, _, _ := unstructured.NestedSlice(getRollout(t, name).Object, "spec", "approval", "acknowledgements")
		assert.Len(t, got, 256)
	})
	t.Run("RO-6 operator sets the outcome label and evidence once", func(t *testing.T) {
		t.Parallel()
		name := approvedRollout(t)
		require.NoError(t, operatorClient().patch(name, map[string]any{"metadata": map[string]any{
			"labels":      map[string]any{outcome: "Succeeded"},
			"annotations": map[string]any{evidence: "oci://registry.example.com/aicr/evidence@" + digestA},
		}}))
		require.NoError(t, operatorClient().patchStatus(name, map[string]any{"phase": "Succeeded"}))
		assert.Equal(t, "Succeeded", getRollout(t, name).GetLabels()[outcome])
	})
	t.Run("RO-6 approver labels a rollout outside the operator's keys", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, approver().label(newRollout(t), "example.com/ticket", "chg-1234"))
	})
	t.Run("PLAN-8 operator writes plan ConfigMaps and approvers read them", func(t *testing.T) {
		t.Parallel()
		name := operatorPlan(t)
		relabel := `{"metadata":{"labels":{"operator.aicr.run/schema-version":"1"}}}`
		require.NoError(t, patchCM(operatorClient(), name, relabel))
		_, err := approver().dyn.Resource(cmGVR).Namespace(releaseNamespace).
			Get(context.Background(), name, metav1.GetOptions{})
		require.NoError(t, err, "approvers read assessment reports and plans (CH-4)")
		require.NoError(t, createCM(as(cmWriterUser), object("v1", "ConfigMap", releaseNamespace, "unlabelled-"+name, nil)),
			"ConfigMaps without the role label are not the policy's business")
	})
	t.Run("PLAN-8 PLAN-3 operator writes values ConfigMaps and approvers read them", func(t *testing.T) {
		t.Parallel()
		cm := valuesConfigMap()
		require.NoError(t, createCM(operatorClient(), cm), "the operator writes values ConfigMaps (PLAN-8)")
		_, err := approver().dyn.Resource(cmGVR).Namespace(releaseNamespace).
			Get(context.Background(), cm.GetName(), metav1.GetOptions{})
		require.NoError(t, err, "approvers read the values of plans (CH-4)")
	})
}

// TestClusterRuntimeFinalizerOnly runs the CR-12 cases in order on the one ClusterRuntime:
// the operator may add and remove its finalizer and write status, nothing else.
func TestClusterRuntimeFinalizerOnly(t *testing.T) {
	t.Parallel()
	needEnv(t)
	op := operatorClient()
	refusals := []bypass{
		{"CR-12 operator patches ClusterRuntime spec", byRuntime, "CR-12: the operator never writes ClusterRuntime spec",
			func(fx) error { return op.patchRuntime(`{"spec":{"paused":true}}`) }},
		{"CR-12 operator rewrites the placement", byRuntime, "CR-12: the operator never writes ClusterRuntime spec",
			func(fx) error {
				return op.patchRuntime(`{"spec":{"placement":{"accelerated":{"nodeSelector":{"example.com/pool":"other"}}}}}`)
			}},
		{"CR-12 operator adds another finalizer", byRuntime,
			"CR-12: the operator adds or removes only its own finalizer operator.aicr.run/cleanup",
			func(fx) error {
				return op.patchRuntime(`{"metadata":{"finalizers":["example.com/backup","example.com/other"]}}`)
			}},
		{"CR-12 operator removes another finalizer", byRuntime,
			"CR-12: the operator adds or removes only its own finalizer operator.aicr.run/cleanup",
			func(fx) error {
				return op.patchRuntime(`{"metadata":{"finalizers":["operator.aicr.run/cleanup"]}}`)
			}},
		{"CR-12 operator sets a request annotation", byRuntime,
			"CR-12: the operator changes no ClusterRuntime labels, annotations or owner references",
			func(fx) error {
				return op.patchRuntime(`{"metadata":{"annotations":{"operator.aicr.run/retry-requested-at":"now"}}}`)
			}},
		{"CR-12 operator labels the ClusterRuntime", byRuntime,
			"CR-12: the operator changes no ClusterRuntime labels, annotations or owner references",
			func(fx) error { return op.patchRuntime(`{"metadata":{"labels":{"example.com/x":"y"}}}`) }},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) { assertRefused(t, c, c.try(fx{t})) })
	}
	t.Run("CR-12 operator adds its finalizer, writes status and removes the finalizer", func(t *testing.T) {
		require.NoError(t, op.patchRuntime(`{"metadata":{"finalizers":["example.com/backup","operator.aicr.run/cleanup"]}}`))
		_, err := op.dyn.Resource(runtimeGVR).Patch(context.Background(), "cluster", typeMerge,
			[]byte(`{"status":{"targetPlanDigest":"`+digestB+`"}}`), metav1.PatchOptions{}, "status")
		require.NoError(t, err)
		require.NoError(t, op.patchRuntime(`{"metadata":{"finalizers":["example.com/backup"]}}`))
		rt, err := admin().dyn.Resource(runtimeGVR).Get(context.Background(), "cluster", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{"example.com/backup"}, rt.GetFinalizers())
	})
	t.Run("CR-12 editors still edit the spec", func(t *testing.T) {
		require.NoError(t, editor().patchRuntime(`{"spec":{"profile":"default"}}`))
	})
}
