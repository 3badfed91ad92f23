package v1alpha1_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// expiresAfterDeadline is the CRD's refusal of an approval that outlives its rollout.
const expiresAfterDeadline = "spec.approval.expiresAt must not be after spec.deadline: an approval cannot outlive its rollout"

// approveUntil approves the rollout as approve does, expiring at at.
func approveUntil(at time.Time) func(ro *aicrv1alpha1.RuntimeRollout) {
	return func(ro *aicrv1alpha1.RuntimeRollout) {
		exp := metav1.NewTime(at)
		ro.Spec.Approval = &aicrv1alpha1.Approval{ApprovedBy: "alice", ExpiresAt: &exp, Reason: "Maintenance window"}
	}
}

// TestRuntimeRolloutApprovalEndsByTheDeadline proves the bound of RO-4 on the real API server:
// an approval's expiresAt after spec.deadline is refused when it is set, by update or on
// create; at or before the deadline it is accepted, and revoking or acknowledging an approval
// that ends at the deadline still works (the rule leaves the set-once rules alone).
func TestRuntimeRolloutApprovalEndsByTheDeadline(t *testing.T) {
	t.Parallel()
	runRolloutUpdates(t, []rolloutUpdateCase{
		{name: "RO-4 an approval expiring one second after the deadline is refused",
			change: approveUntil(deadline.Add(time.Second)), wantErr: expiresAfterDeadline},
		{name: "RO-4 an approval expiring a year after the deadline is refused",
			change: approveUntil(deadline.AddDate(1, 0, 0)), wantErr: expiresAfterDeadline},
		{name: "RO-4 an approval expiring at the deadline is accepted", change: approveUntil(deadline.Time)},
		{name: "RO-4 an approval expiring before the deadline is accepted", change: approveUntil(deadline.Add(-time.Hour))},
		{name: "RO-4 revoking an approval that ends at the deadline is accepted",
			setup: updates(approveUntil(deadline.Time)), change: revoke},
		{name: "RO-4 acknowledging an approval that ends before the deadline is accepted",
			setup: updates(approveUntil(deadline.Add(-time.Minute))), change: acknowledge("gpu-operator")},
		{name: "RO-4 extending an approval past the deadline is refused by both rules",
			setup: updates(approveUntil(deadline.Time)), change: approveUntil(deadline.Add(time.Hour)),
			wantErr: expiresAfterDeadline},
	})
	runRolloutCreates(t, []rolloutCreateCase{
		// The approval policy refuses any create with spec.approval (ADM-4); the CRD refuses
		// this one on its own, so the bound holds even while that policy's binding is lifted
		// for a restore (ADM-5).
		{name: "RO-4 a rollout created with an approval past its deadline is refused",
			mutate: approveUntil(deadline.Add(time.Minute)), wantErr: expiresAfterDeadline},
		{name: "RO-4 a rollout created with an approval until its deadline is accepted by the CRD",
			mutate: approveUntil(deadline.Time)},
	})
}

// TestRuntimeRolloutApprovalExpiryComparesInstants checks that the RO-4 bound compares
// instants, not strings: expiresAt and deadline written with other UTC offsets than the
// operator's are ordered by the time they denote.
func TestRuntimeRolloutApprovalExpiryComparesInstants(t *testing.T) {
	t.Parallel()
	// deadline is 2026-12-01T12:00:00Z.
	cases := []struct {
		name      string
		expiresAt string
		wantErr   string
	}{
		{"RO-4 13:00+02:00 is 11:00Z, before the deadline, and is accepted", "2026-12-01T13:00:00+02:00", ""},
		{"RO-4 11:30-01:00 is 12:30Z, after the deadline, and is refused", "2026-12-01T11:30:00-01:00", expiresAfterDeadline},
		{"RO-4 14:00+02:00 is exactly the deadline and is accepted", "2026-12-01T14:00:00+02:00", ""},
		{"RO-4 12:00:01Z is one second late and is refused", "2026-12-01T12:00:01Z", expiresAfterDeadline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(validRollout(t))
			require.NoError(t, err)
			u := &unstructured.Unstructured{Object: raw}
			u.SetGroupVersionKind(aicrv1alpha1.GroupVersion.WithKind("RuntimeRollout"))
			require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{
				"approvedBy": "alice", "expiresAt": tc.expiresAt, "reason": "Maintenance window",
			}, "spec", "approval"))
			expectAdmission(t, k8s.Create(context.Background(), u, client.DryRunAll), tc.wantErr)
		})
	}
}

// TestRuntimeRolloutApprovalExpiryRatchets proves, on the real API server, that the RO-4 bound
// lets a rollout approved before the bound existed (expiresAt after its deadline, which the
// API server no longer accepts) still be revoked, while a changed expiresAt is still refused.
// It serves a copy of the chart's RuntimeRollout CRD under a group of its own, first without
// the bound, stores such a rollout, then adds the bound exactly as the chart's CRD has it.
func TestRuntimeRolloutApprovalExpiryRatchets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	admin, err := client.New(restConfig, client.Options{Scheme: scheme})
	require.NoError(t, err)
	crd := chartRolloutCRD(t)
	const group = "ratchet.test.aicr.run"
	crd.Name, crd.Spec.Group = "runtimerollouts."+group, group
	specSchema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	var without apiextensionsv1.ValidationRules
	for _, r := range specSchema.XValidations {
		if r.Message != expiresAfterDeadline {
			without = append(without, r)
		}
	}
	require.Len(t, without, len(specSchema.XValidations)-2, "the chart's CRD bounds creates and updates on spec (RO-4)")
	withBound := specSchema.XValidations
	setSpecRules := func(rules apiextensionsv1.ValidationRules) {
		s := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		s.XValidations = rules
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = s
	}
	setSpecRules(without)
	require.NoError(t, admin.Create(ctx, crd))
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(admin.Delete(ctx, crd))) })

	dyn, err := dynamic.NewForConfig(restConfig)
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "runtimerollouts"}
	object := func(name, expiresAt string) *unstructured.Unstructured {
		ro := validRollout(t)
		ro.Name = name
		raw, convErr := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
		require.NoError(t, convErr)
		u := &unstructured.Unstructured{Object: raw}
		u.SetAPIVersion(group + "/v1alpha1")
		u.SetKind("RuntimeRollout")
		require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{
			"approvedBy": "alice", "expiresAt": expiresAt, "reason": "Maintenance window",
		}, "spec", "approval"))
		return u
	}
	late := deadline.Add(48 * time.Hour).UTC().Format(time.RFC3339)
	var stored *unstructured.Unstructured
	require.Eventually(t, func() bool { // the new group is served once the CRD is established
		stored, err = dyn.Resource(gvr).Create(ctx, object("approved-before-the-bound", late), metav1.CreateOptions{})
		return err == nil
	}, time.Minute, 100*time.Millisecond, "store a late approval before the bound exists: %v", err)

	crd.ResourceVersion = ""
	require.NoError(t, admin.Get(ctx, client.ObjectKeyFromObject(crd), crd))
	setSpecRules(withBound)
	require.NoError(t, admin.Update(ctx, crd))
	require.Eventually(t, func() bool { // the API server serves the updated rules
		_, err := dyn.Resource(gvr).Create(ctx, object("probe", late), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), expiresAfterDeadline)
	}, time.Minute, 100*time.Millisecond, "the bound is enforced")

	t.Run("RO-4 revoking an approval stored before the bound is accepted", func(t *testing.T) {
		u := stored.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(u.Object, "bob", "spec", "approval", "revokedBy"))
		require.NoError(t, unstructured.SetNestedField(u.Object, approved.UTC().Format(time.RFC3339), "spec", "approval", "revokedAt"))
		require.NoError(t, unstructured.SetNestedField(u.Object, "Job not checkpointed", "spec", "approval", "revokeReason"))
		_, err := dyn.Resource(gvr).Update(ctx, u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		require.NoError(t, err)
	})
	t.Run("RO-4 moving that approval's expiry later still is refused", func(t *testing.T) {
		u := stored.DeepCopy()
		later := deadline.Add(72 * time.Hour).UTC().Format(time.RFC3339)
		require.NoError(t, unstructured.SetNestedField(u.Object, later, "spec", "approval", "expiresAt"))
		_, err := dyn.Resource(gvr).Update(ctx, u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), expiresAfterDeadline)
		assert.Contains(t, err.Error(), "an approval is set once")
	})
}

// chartRolloutCRD reads the chart's RuntimeRollout CRD, the one the suite installed.
func chartRolloutCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "charts", "aicr-operator", "templates", "crds",
		"operator.aicr.run_runtimerollouts.yaml"))
	require.NoError(t, err)
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.Unmarshal(raw, &crd))
	require.Len(t, crd.Spec.Versions, 1)
	crd.Annotations = nil
	return &crd
}
