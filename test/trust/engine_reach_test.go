package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// webhookOver is a mutating webhook configuration a chart could carry, over resource of group,
// in the namespaces selector selects (nil: every namespace).
func webhookOver(name, group, resource string, selector *metav1.LabelSelector) *admissionregistrationv1.MutatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://hooks.example.com/mutate"
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: name + ".hooks.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}, NamespaceSelector: selector,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}},
			}},
		}},
	}
}

// guardedNamespaces are the namespaces whose objects the operator reads back: its own, the
// Job namespaces and Argo CD's.
func guardedNamespaces() []string {
	return []string{operatorNS, jobsNS, discoveryNS, validationNS, "argocd"}
}

// TestAttack_ReleaseWatchesTheOperatorsInputs: a chart carries a webhook over a kind the
// operator reads back (Job output ConfigMaps, Job Pods, Applications, its Lease), which could
// change them on their way in. A webhook whose namespaceSelector leaves the operator's
// namespaces out still syncs, as a GPU stack's pod webhooks do.
func TestAttack_ReleaseWatchesTheOperatorsInputs(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	for _, kind := range []struct{ group, resource string }{
		{"", "configmaps"}, {"", "pods"}, {"", "secrets"}, {"", "pods/status"}, {"argoproj.io", "applications"},
		{"coordination.k8s.io", "leases"}, {"batch", "jobs"},
	} {
		refused(t, argoCD().Create(ctx, webhookOver("attack-inputs", kind.group, kind.resource, nil)),
			"needs a namespaceSelector on kubernetes.io/metadata.name that leaves out")
	}
	partly := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{operatorNS, jobsNS}}}}
	refused(t, argoCD().Create(ctx, webhookOver("attack-partly", "", "pods", partly)), "leaves out")

	outside := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: guardedNamespaces()}}}
	require.NoError(t, argoCD().Create(ctx, webhookOver("gpu-pods", "", "pods", outside), client.DryRunAll),
		"a pod webhook that leaves the operator's namespaces out syncs")
	own := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": components[0]}}
	require.NoError(t, argoCD().Create(ctx, webhookOver("gpu-own", "", "configmaps", own), client.DryRunAll),
		"a webhook over its own namespace syncs")
}

// TestAttack_ReleaseWatchesNodes: node labels decide the node groups; a webhook over Nodes, or
// over every core resource, could rewrite them.
func TestAttack_ReleaseWatchesNodes(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	for _, resource := range []string{"nodes", "*"} {
		refused(t, argoCD().Create(ctx, webhookOver("attack-nodes", "", resource, nil)), "never intercepts Nodes or every core resource")
	}
}

// TestAttack_ReleaseGrantsClusterAdmin: a chart binds a ServiceAccount of its own to
// cluster-admin, to a controller's system role, or to a role of its own that writes
// everything. Each would pass the approval policy's check of runtimerollouts/approve.
func TestAttack_ReleaseGrantsClusterAdmin(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "sneaky", Namespace: components[0]}}
	for _, role := range []string{"cluster-admin", "system:controller:generic-garbage-collector", "system:kube-controller-manager"} {
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "attack-admin"}, Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
		refused(t, argoCD().Create(ctx, binding), "trust chain: Argo CD never binds "+role)
	}
	everything := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "attack-everything"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"update"}}}}
	refused(t, argoCD().Create(ctx, everything), "never writes every resource of every group")

	reader := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gpu-discovery"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}}
	require.NoError(t, argoCD().Create(ctx, reader, client.DryRunAll), "a role that reads everything syncs")
	delegator := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "gpu-auth-delegator"}, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"}}
	require.NoError(t, argoCD().Create(ctx, delegator, client.DryRunAll), "a binding to system:auth-delegator syncs")
}

// TestAttack_ReleaseRemovesTheGuards: Argo CD prunes RBAC the chart installed to guard the
// operator, the approver role, the operator's own binding and the snapshot agent's, whose
// name does not start with aicr-operator.
func TestAttack_ReleaseRemovesTheGuards(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	binding := &rbacv1.ClusterRoleBinding{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: "aicr-operator"}, binding))
	refused(t, argoCD().Delete(ctx, binding, client.DryRunAll), "Argo CD never deletes the aicr-operator chart RBAC aicr-operator")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-approver"}}
	refused(t, argoCD().Delete(ctx, role), "Argo CD never deletes the aicr-operator chart RBAC aicr-operator-approver")
	agent := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-agent"}}
	refused(t, argoCD().Delete(ctx, agent, client.DryRunAll), "Argo CD never deletes the aicr-operator chart RBAC aicr-snapshot-agent")
}
