package jobexec

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Identities the executor plays, as a real cluster has them: the Job controller creates a
// Job's Pods, and the AICR container writes its output with the Pod's bound ServiceAccount
// token, whose pod-name claim the chart's aicr-operator-job-configmaps policy checks.
const (
	// JobControllerUser is kube-controller-manager's Job controller
	// (--use-service-account-credentials), bound to its bootstrap RBAC role.
	JobControllerUser = "system:serviceaccount:kube-system:job-controller"
	// GarbageCollectorUser is kube-controller-manager's garbage collector, bound to its
	// bootstrap RBAC role.
	GarbageCollectorUser = "system:serviceaccount:kube-system:generic-garbage-collector"
	// KubeletUser is the simulated kubelet's node identity, which writes the status of the
	// Pods it plays, bound to the bootstrap system:node role (bindKubelet).
	KubeletUser = "system:node:" + Node
	// PodNameExtra and PodUIDExtra are the claims of a bound ServiceAccount token that the API
	// server puts into the user's extra information.
	PodNameExtra = "authentication.kubernetes.io/pod-name"
	PodUIDExtra  = "authentication.kubernetes.io/pod-uid"
	// Node is the node of the simulated kubelet: every Pod it plays is bound to it, so a real
	// scheduler and kwok (the end-to-end environment) leave those Pods alone. No Node object of
	// that name exists.
	Node = "aicr-simulated-kubelet"
)

var (
	// controllerGroups are the groups of a kube-system controller's ServiceAccount.
	controllerGroups = []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}
	// kubeletGroups are the groups of a kubelet's node credential.
	kubeletGroups = []string{"system:nodes", "system:authenticated"}
)

// bindKubelet binds the simulated kubelet to the bootstrap system:node role, as a cluster's
// Node authorizer grants a kubelet the status of its Pods. The binding is shared by every
// executor of the control plane.
func (e *Executor) bindKubelet(ctx context.Context) error {
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: Node},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: KubeletUser}},
	}
	if err := e.c.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("bind the simulated kubelet: %w", err)
	}
	return nil
}

// impersonating returns a client of the executor's scheme and REST mapping that acts as
// impersonate (the admin config impersonates it, so RBAC and admission see that user).
func (e *Executor) impersonating(impersonate rest.ImpersonationConfig) (client.Client, error) {
	cfg := rest.CopyConfig(e.cfg)
	cfg.Impersonate = impersonate
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("client as %s: %w", impersonate.UserName, err)
	}
	return client.New(cfg, client.Options{Scheme: e.c.Scheme(), Mapper: e.c.RESTMapper(), HTTPClient: hc})
}

// asPod returns a client that acts as the Pod pod of the executor's namespace running as the
// ServiceAccount serviceAccount, as the Pod's bound token would.
func (e *Executor) asPod(serviceAccount, pod, podUID string) (client.Client, error) {
	return e.impersonating(rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + e.namespace + ":" + serviceAccount,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + e.namespace, "system:authenticated"},
		Extra:    map[string][]string{PodNameExtra: {pod}, PodUIDExtra: {podUID}},
	})
}
