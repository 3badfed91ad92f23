package chart_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

const (
	typeMerge = types.MergePatchType
	deadline  = "2030-01-01T00:00:00Z"
	expiresAt = "2029-12-31T00:00:00Z"
	ackedAt   = "2029-12-30T00:00:00Z"
	uid       = "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f"
	digestA   = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB   = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	outcome   = "operator.aicr.run/outcome"
	evidence  = "operator.aicr.run/evidence"
	roleLabel = "operator.aicr.run/role"
)

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

var rolloutSeq atomic.Int64

// client is one identity's view of the control plane.
type client struct {
	user string
	dyn  dynamic.Interface
}

func as(user string, groups ...string) client {
	return client{user: user, dyn: dynamicFor(testEnv.Impersonate(user, groups...))}
}

func operatorClient() client { return as(operatorUser, operatorGroups...) }
func approver() client       { return as(approverUser) }
func groupMember() client    { return as(groupApprover, approverGroup) }
func editor() client         { return as(editorUser) }
func admin() client          { return client{user: "admin", dyn: dynamicFor(testEnv.Config)} }

// rolloutObject is a RuntimeRollout as the operator creates it; mutate adjusts it.
func rolloutObject(name string, mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	o := object("operator.aicr.run/v1alpha1", "RuntimeRollout", "", name,
		map[string]string{"operator.aicr.run/transition": "3f9a1c0d2b7e4a51", "operator.aicr.run/runtime-uid": uid})
	o.Object["spec"] = map[string]any{
		"runtimeUID":              uid,
		"fromPlanDigest":          digestA,
		"toPlanDigest":            digestB,
		"startingInventoryDigest": digestA,
		"deadline":                deadline,
		"approvalRequired":        true,
		"steps": []any{
			map[string]any{"release": "gpu-operator", "operation": "Upgrade", "assessment": "manual", "changesCRDs": true},
			map[string]any{"release": "nvsentinel", "operation": "Upgrade", "assessment": "manual"},
		},
	}
	if mutate != nil {
		mutate(o)
	}
	return o
}

// newRollout creates a fresh rollout as the operator and returns its name.
func newRollout(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("rollout-3f9a1c0d2b7e4a51-%d", rolloutSeq.Add(1))
	_, err := operatorClient().dyn.Resource(rolloutGVR).
		Create(context.Background(), rolloutObject(name, nil), metav1.CreateOptions{})
	require.NoError(t, err, "the operator creates rollouts (RO-14)")
	return name
}

// approvedRollout creates a rollout and has the approver approve it.
func approvedRollout(t *testing.T) string {
	t.Helper()
	name := newRollout(t)
	require.NoError(t, approver().approve(name, approverUser))
	return name
}

// patch sends a JSON merge patch of body to the rollout as c.
func (c client) patch(name string, body map[string]any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	_, err = c.dyn.Resource(rolloutGVR).Patch(context.Background(), name, typeMerge, raw, metav1.PatchOptions{})
	return err
}

// patchStatus patches the rollout's status subresource as c.
func (c client) patchStatus(name string, status map[string]any) error {
	raw, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	_, err = c.dyn.Resource(rolloutGVR).Patch(context.Background(), name, typeMerge, raw, metav1.PatchOptions{}, "status")
	return err
}

func approval(fields map[string]any) map[string]any {
	return map[string]any{"spec": map[string]any{"approval": fields}}
}

// approve sets approvedBy to by, as kubectl aicr approve does.
func (c client) approve(name, by string) error {
	return c.patch(name, approval(map[string]any{
		"approvedBy": by, "expiresAt": expiresAt, "reason": "maintenance window",
	}))
}

// revoke sets revokedBy to by, as kubectl aicr revoke does.
func (c client) revoke(name, by string) error {
	return c.patch(name, approval(map[string]any{
		"revokedBy": by, "revokedAt": ackedAt, "revokeReason": "job not checkpointed",
	}))
}

// acknowledge replaces the acknowledgements with acks (release -> acknowledgedBy), as the
// plugin appends to the list it read.
func (c client) acknowledge(name string, acks ...[2]string) error {
	list := make([]any, len(acks))
	for i, a := range acks {
		list[i] = map[string]any{"release": a[0], "acknowledgedBy": a[1], "acknowledgedAt": ackedAt}
	}
	return c.patch(name, approval(map[string]any{"acknowledgements": list}))
}

// override replaces the disruption overrides with overrides (release -> overriddenBy), as the
// plugin appends to the list it read.
func (c client) override(name string, overrides ...[2]string) error {
	list := make([]any, len(overrides))
	for i, o := range overrides {
		list[i] = map[string]any{"release": o[0], "overriddenBy": o[1], "overriddenAt": ackedAt, "reason": "job checkpointed"}
	}
	return c.patch(name, approval(map[string]any{"disruptionOverrides": list}))
}

// label sets (or with value "" removes) a label on the rollout as c.
func (c client) label(name, key, value string) error {
	var v any = value
	if value == "" {
		v = nil
	}
	return c.patch(name, map[string]any{"metadata": map[string]any{"labels": map[string]any{key: v}}})
}

// annotate sets (or with value "" removes) an annotation on the rollout as c.
func (c client) annotate(name, key, value string) error {
	var v any = value
	if value == "" {
		v = nil
	}
	return c.patch(name, map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
}

// evidenceRef is an evidence annotation value for the evidence artifact of digest.
func evidenceRef(digest string) string {
	return "oci://registry.example.com/aicr/evidence@" + digest
}

// get reads the rollout as the administrator.
func getRollout(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	o, err := admin().dyn.Resource(rolloutGVR).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return o
}

// planConfigMap is an operator-labelled plan ConfigMap in the operator namespace.
func planConfigMap(name string) *unstructured.Unstructured {
	o := object("v1", "ConfigMap", releaseNamespace, name, map[string]string{roleLabel: "plan"})
	o.SetAnnotations(map[string]string{"operator.aicr.run/plan-digest": digestB})
	o.Object["data"] = map[string]any{"plan.json": `{"schemaVersion":1}`}
	return o
}

// valuesConfigMap is an operator-labelled values ConfigMap (PLAN-3) in the operator namespace.
func valuesConfigMap() *unstructured.Unstructured {
	name := fmt.Sprintf("aicr-values-%016x", rolloutSeq.Add(1))
	o := object("v1", "ConfigMap", releaseNamespace, name, map[string]string{roleLabel: "values"})
	o.SetAnnotations(map[string]string{"operator.aicr.run/plan-digest": digestB})
	o.Object["data"] = map[string]any{"gpu-operator": `{"driver":{"version":"580.82.07"}}`}
	o.Object["immutable"] = true
	return o
}

// patchRuntime sends a JSON merge patch to the ClusterRuntime as c.
func (c client) patchRuntime(body string) error {
	_, err := c.dyn.Resource(runtimeGVR).
		Patch(context.Background(), "cluster", typeMerge, []byte(body), metav1.PatchOptions{})
	return err
}

// fx hands a bypass attempt its test, so it can set up the objects it needs.
type fx struct{ t *testing.T }

func (f fx) newRollout() string {
	f.t.Helper()
	return newRollout(f.t)
}

func (f fx) approvedRollout() string {
	f.t.Helper()
	return approvedRollout(f.t)
}

func (f fx) operatorPlan() string {
	f.t.Helper()
	return operatorPlan(f.t)
}

// deleteAndWait deletes the object name through ri as the administrator and waits until the
// API server no longer has it; an object already gone is success.
func deleteAndWait(t *testing.T, ri dynamic.ResourceInterface, name string) {
	t.Helper()
	ctx := context.Background()
	err := ri.Delete(ctx, name, metav1.DeleteOptions{})
	if !apierrors.IsNotFound(err) {
		require.NoError(t, err, "delete %s", name)
	}
	require.Eventually(t, func() bool {
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 30*time.Second, 100*time.Millisecond, "%s is deleted", name)
}
