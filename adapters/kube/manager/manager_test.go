package manager_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/env"
)

var cp *env.Env

// runs numbers the test runs in this binary, so go test -count=N gives every run namespaces of
// its own on the shared control plane (envtest runs no namespace controller, so a namespace is
// never really deleted).
var runs atomic.Int64

func TestMain(m *testing.M) {
	var err error
	if cp, err = env.Start(env.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := cp.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// TestCacheHoldsOnlyTheOperatorsConfigMaps proves the cache filter of OPS-2/CH-4: a cached
// list of ConfigMaps returns only role-labelled ones in the operator namespace, and the
// manager, running as an identity that may only get one Secret by name (no list, no watch),
// reads it: the client bypasses the cache for Secrets, so no Secret informer exists.
func TestCacheHoldsOnlyTheOperatorsConfigMaps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := runs.Add(1)
	operatorNS, jobsNS := fmt.Sprintf("aicr-system-%d", run), fmt.Sprintf("aicr-jobs-%d", run)
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	for _, ns := range []string{operatorNS, fmt.Sprintf("elsewhere-%d", run)} {
		require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		for _, cm := range []*corev1.ConfigMap{
			{ObjectMeta: metav1.ObjectMeta{Name: "plan", Namespace: ns, Labels: map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: ns}},
		} {
			require.NoError(t, admin.Create(ctx, cm))
		}
	}
	require.NoError(t, admin.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "aicr-registry", Namespace: operatorNS}}))

	grantOperatorLikeAccess(ctx, t, admin, operatorNS, jobsNS)
	mgr, err := manager.New(cp.Impersonate(operatorUser), manager.Options{
		OperatorNamespace: operatorNS, JobNamespaces: []string{jobsNS},
		MetricsBindAddress: "0", HealthProbeBindAddress: "0",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))

	var cms corev1.ConfigMapList
	require.NoError(t, mgr.GetClient().List(ctx, &cms))
	var names []string
	for _, cm := range cms.Items {
		names = append(names, cm.Namespace+"/"+cm.Name)
	}
	assert.Equal(t, []string{operatorNS + "/plan"}, names)

	getCtx, getCancel := context.WithTimeout(ctx, 10*time.Second)
	defer getCancel()
	var secret corev1.Secret
	require.NoError(t, mgr.GetClient().Get(getCtx, client.ObjectKey{Namespace: operatorNS, Name: "aicr-registry"}, &secret),
		"a cached read would need list and watch on Secrets, which this identity lacks")

	cancel()
	require.NoError(t, <-done)
}

const operatorUser = "system:serviceaccount:aicr-system:aicr-operator"

// grantOperatorLikeAccess lets operatorUser list and watch ConfigMaps in operatorNS and Jobs in
// jobsNS (which it creates), and get exactly one Secret by name.
func grantOperatorLikeAccess(ctx context.Context, t *testing.T, admin client.Client, operatorNS, jobsNS string) {
	t.Helper()
	rules := map[string][]rbacv1.PolicyRule{
		operatorNS: {
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"aicr-registry"}, Verbs: []string{"get"}},
		},
		jobsNS: {{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "watch"}}},
	}
	for ns, r := range rules {
		if ns == jobsNS {
			require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		}
		require.NoError(t, admin.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: ns}, Rules: r}))
		require.NoError(t, admin.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "operator"},
			Subjects:   []rbacv1.Subject{{Kind: "User", Name: operatorUser}},
		}))
	}
}
