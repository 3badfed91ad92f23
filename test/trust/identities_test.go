package trust_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// The identities of the suite. Each attacker holds exactly the grant its attack needs.
const (
	operatorUser = "system:serviceaccount:" + operatorNS + ":aicr-operator"
	jobsUser     = "system:serviceaccount:" + jobsNS + ":aicr-jobs"
	// approverUser is bound to the chart's approver roles through approvers.users.
	approverUser = "approver-alice"
	// editorUser edits the ClusterRuntime and nothing else.
	editorUser = "editor-eve"
	// cmEditorUser may create, change and delete any ConfigMap of the operator namespace.
	cmEditorUser = "mallory"
	// jobsAdminUser is an administrator of the Job namespace (the admin ClusterRole there).
	jobsAdminUser = "jobs-admin"
	// jobStatusUser may write the status of Jobs and Pods in the Job namespace and bind its Pods.
	jobStatusUser = "job-status-jo"
	// statusUser may write the status of both kinds.
	statusUser = "status-sam"
	// policyUser may change admission policies and their bindings.
	policyUser = "policy-pat"
)

// as returns a client acting as user with groups, through RBAC and admission.
func as(user string, groups ...string) client.Client {
	c, err := controlPlane.ClientAs(scheme, user, groups...)
	if err != nil {
		panic(err)
	}
	return c
}

// operatorConfig is the operator's ServiceAccount as the API server sees it.
func operatorConfig() *rest.Config {
	return controlPlane.Impersonate(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
}

// podOf returns a client acting as a Pod named pod running as aicr-jobs: the user and the
// bound token's pod-name claim the API server would see.
func podOf(pod string) client.Client {
	cfg := rest.CopyConfig(controlPlane.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: jobsUser, Groups: []string{"system:authenticated", "system:serviceaccounts", "system:serviceaccounts:" + jobsNS},
		Extra: map[string][]string{jobexec.PodNameExtra: {pod}, jobexec.PodUIDExtra: {"uid-of-" + pod}},
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	return c
}

// attackerGrants are the RBAC grants of the attackers.
func attackerGrants() []client.Object {
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	rule := func(group, resource string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
	}
	clusterGrant := func(user string, rules ...rbacv1.PolicyRule) []client.Object {
		return []client.Object{
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "test-" + user}, Rules: rules},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-" + user},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "test-" + user},
				Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}},
		}
	}
	var objs []client.Object
	objs = append(objs, clusterGrant(editorUser, rule("operator.aicr.run", "clusterruntimes", all...),
		rule("operator.aicr.run", "runtimerollouts", "get", "list", "watch"))...)
	objs = append(objs, clusterGrant(statusUser, rule("operator.aicr.run", "clusterruntimes", "get", "list"),
		rule("operator.aicr.run", "runtimerollouts", "get", "list"),
		rule("operator.aicr.run", "clusterruntimes/status", "get", "update", "patch"),
		rule("operator.aicr.run", "runtimerollouts/status", "get", "update", "patch"))...)
	objs = append(objs, clusterGrant(policyUser, rule("admissionregistration.k8s.io", "validatingadmissionpolicybindings", all...),
		rule("admissionregistration.k8s.io", "validatingadmissionpolicies", all...))...)
	// The Application editor writes Applications in the engine namespace and nothing else.
	objs = append(objs,
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-app-editor", Namespace: "argocd"},
			Rules: []rbacv1.PolicyRule{rule("argoproj.io", "applications", all...)}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-app-editor", Namespace: "argocd"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "test-app-editor"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: appEditorUser}}})
	// The RBAC admin deletes roles, bindings and webhook configurations anywhere.
	objs = append(objs, clusterGrant(rbacAdminUser,
		rule("rbac.authorization.k8s.io", "clusterroles", "get", "list", "delete", "deletecollection"),
		rule("rbac.authorization.k8s.io", "roles", "get", "list", "delete", "deletecollection"),
		rule("rbac.authorization.k8s.io", "clusterrolebindings", "get", "list", "delete"),
		rule("rbac.authorization.k8s.io", "rolebindings", "get", "list", "delete"),
		rule("admissionregistration.k8s.io", "validatingwebhookconfigurations", "get", "list", "delete"),
		rule("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get", "list", "delete"))...)
	// The project admin edits AppProjects in the engine namespace and nothing else.
	objs = append(objs,
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-project-admin", Namespace: "argocd"},
			Rules: []rbacv1.PolicyRule{rule("argoproj.io", "appprojects", all...)}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-project-admin", Namespace: "argocd"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "test-project-admin"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: projectAdminUser}}})
	// Argo CD's application controller holds every right, as Argo CD's own install grants it.
	objs = append(objs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-argocd-application-controller"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "argocd-application-controller", Namespace: "argocd"}}})
	objs = append(objs,
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-cm-editor", Namespace: operatorNS},
			Rules: []rbacv1.PolicyRule{rule("", "configmaps", all...)}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-cm-editor", Namespace: operatorNS},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "test-cm-editor"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: cmEditorUser}}},
		// What the built-in admin role grants in a namespace (envtest runs no aggregation
		// controller to fill it): workloads, exec, ConfigMaps, ServiceAccount tokens.
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-jobs-admin", Namespace: jobsNS}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: all},
			{APIGroups: []string{""}, Resources: []string{"pods", "pods/ephemeralcontainers", "configmaps", "secrets"}, Verbs: all},
			{APIGroups: []string{""}, Resources: []string{"pods/exec", "pods/attach", "pods/portforward"}, Verbs: []string{"get", "create"}},
			{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-jobs-admin", Namespace: jobsNS},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "test-jobs-admin"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: jobsAdminUser}}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-job-status", Namespace: jobsNS}, Rules: []rbacv1.PolicyRule{
			rule("batch", "jobs", "get", "list"), rule("batch", "jobs/status", "get", "update", "patch"),
			rule("", "pods", "get", "list"), rule("", "pods/status", "get", "update", "patch"), rule("", "pods/binding", "create"),
		}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-job-status", Namespace: jobsNS},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "test-job-status"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: jobStatusUser}}},
	)
	return objs
}

// waitEnforced polls, with a bound, until the policies refuse a dry-run probe each: policies
// are compiled asynchronously after they are created.
func waitEnforced(ctx context.Context) error {
	dry := client.DryRunAll
	probes := map[string]func() error{
		"PLAN-8": func() error {
			return as(cmEditorUser).Create(ctx, labelled(operatorNS, "probe", nil), dry)
		},
		"RES-8": func() error {
			return as(jobsAdminUser).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: jobsNS}}, dry)
		},
		"RES-8: Jobs": func() error {
			return as(jobsAdminUser).Create(ctx, job("probe", aicrImage, "aicr-jobs"), dry)
		},
		"trust chain: Argo CD": func() error {
			return argoCD().Delete(ctx, &apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: "runtimerollouts.operator.aicr.run"}}, client.DryRunAll)
		},
	}
	for id, probe := range probes {
		var last error
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			last = probe()
			return last != nil && strings.Contains(last.Error(), id), nil
		})
		if err != nil {
			return fmt.Errorf("policy for %s not enforced (last answer: %v): %w", id, last, err)
		}
	}
	return nil
}

// labelled is a ConfigMap carrying the operator's labels for role (nil: no role).
func labelled(namespace, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
		"operator.aicr.run/role": "recipe", "operator.aicr.run/managed-by": "aicr-operator",
	}}, Data: data}
}

// job is a Job running image as serviceAccount in the Job namespace.
func job(name, image, serviceAccount string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: jobsNS},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: serviceAccount, RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "aicr", Image: image}},
		}}},
	}
}

// loadSeals loads the operator's seal key as the operator's ServiceAccount does on start: it
// makes the key Secret on the first call (the chart's RBAC lets it), and reads it after.
var loadSeals = sync.OnceValues(func() (*sealer.Sealer, error) {
	return sealer.Load(context.Background(), operator(), operator(), operatorNS)
})

// operatorSeals is the operator's sealer over the key only its ServiceAccount can read.
func operatorSeals() *sealer.Sealer {
	s, err := loadSeals()
	if err != nil {
		panic(err)
	}
	return s
}
