package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// rbacAdminUser may delete every role, binding and webhook configuration, and nothing else.
const rbacAdminUser = "rbac-admin-rex"

// teardownRefusal is what aicr-operator-teardown-guard answers.
const teardownRefusal = "trust chain: only chartAdmins delete the aicr-operator chart"

// TestAttack_ChartRBACDeleted: an identity that may delete any RBAC object (one by one or a
// whole namespace's roles at once) takes the operator's rights away; Argo CD's application
// controller and the garbage collector try too. aicr-operator-teardown-guard refuses each of
// them: only chartAdmins (helm upgrade and uninstall, here system:masters) delete the chart's
// RBAC, while an RBAC object of a release stays Argo CD's to prune.
func TestAttack_ChartRBACDeleted(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	for _, attacker := range map[string]client.Client{
		"rbac admin": as(rbacAdminUser),
		"Argo CD":    argoCD(),
		"garbage collector": as("system:serviceaccount:kube-system:generic-garbage-collector",
			"system:serviceaccounts", "system:serviceaccounts:kube-system"),
	} {
		for _, o := range []client.Object{
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator"}},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator"}},
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator", Namespace: operatorNS}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobsNS}},
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-agent"}},
		} {
			refused(t, attacker.Delete(ctx, o, client.DryRunAll), "trust chain:")
		}
	}
	refused(t, as(rbacAdminUser).DeleteAllOf(ctx, &rbacv1.Role{}, client.InNamespace(operatorNS), client.DryRunAll),
		teardownRefusal)

	// A release's own RBAC is Argo CD's to prune, and a chart admin deletes the chart's.
	release := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gpu-operator-node-reader"}}
	require.NoError(t, k8s.Create(ctx, release))
	require.NoError(t, argoCD().Delete(ctx, release))
	require.NoError(t, k8s.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator"}}, client.DryRunAll))
}

// TestAttack_ChartWebhookDeleted: a webhook configuration labelled as the chart's may be
// deleted only by chartAdmins; Argo CD still prunes the webhook configurations of a release,
// which carry no label of the chart's.
func TestAttack_ChartWebhookDeleted(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	ours := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{
		Name: "chart-webhooks", Labels: map[string]string{"app.kubernetes.io/name": "aicr-operator"}}}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{
		Name: "chart-defaults", Labels: map[string]string{"app.kubernetes.io/name": "aicr-operator"}}}
	for _, o := range []client.Object{ours, mutating} {
		require.NoError(t, k8s.Create(ctx, o))
		refused(t, as(rbacAdminUser).Delete(ctx, o), teardownRefusal)
		refused(t, argoCD().Delete(ctx, o), teardownRefusal)
		require.NoError(t, k8s.Delete(ctx, o), "a chart admin deletes it")
	}

	release := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{
		Name: "gpu-operator-validator", Labels: map[string]string{"app.kubernetes.io/instance": "gpu-operator"}}}
	require.NoError(t, k8s.Create(ctx, release))
	require.NoError(t, argoCD().Delete(ctx, release), "Argo CD prunes a release's webhook configuration")
	require.True(t, apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(release), release)))
}
