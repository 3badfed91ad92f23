package chart_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	appProjectGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
	crdGVR        = schema.GroupVersionResource{
		Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions",
	}
	policyGVR = schema.GroupVersionResource{
		Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies",
	}
	deploymentGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	clusterRoleGVR = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
)

// TestHelmUninstallKeepsDurableObjects installs the chart on a control plane of its own and
// uninstalls it: the CRDs, namespaces, AppProject, repo-creds Secret and the approval policy
// with its binding stay (CH-3), and so do the plans policy and binding (PLAN-8: plan
// ConfigMaps outlive uninstall); everything else goes. With its binding kept, the approval
// policy still refuses a rollout create after uninstall (RO-14).
func TestHelmUninstallKeepsDurableObjects(t *testing.T) {
	t.Parallel()
	needEnv(t)
	dir := t.TempDir()
	own, h, err := startControlPlane(dir)
	if own != nil {
		t.Cleanup(func() { assert.NoError(t, own.Stop()) })
	}
	require.NoError(t, err)
	require.NoError(t, h.uninstall())

	dyn := dynamicFor(own.Config)
	ctx := context.Background()
	type ref struct {
		gvr       schema.GroupVersionResource
		namespace string
		name      string
	}
	kept := []ref{
		{crdGVR, "", "clusterruntimes.operator.aicr.run"},
		{crdGVR, "", "runtimerollouts.operator.aicr.run"},
		{namespaceGVR, "", "gpu-operator"},
		{namespaceGVR, "", "aicr-jobs"},
		{namespaceGVR, "", "aicr-discovery"},
		{namespaceGVR, "", "aicr-validation"},
		{appProjectGVR, engineNS, "aicr"},
		{secretGVR, engineNS, "aicr-registry"},
		{policyGVR, "", "aicr-operator-approval"},
		{bindingGVR, "", "aicr-operator-approval"},
		{policyGVR, "", "aicr-operator-plans"},
		{bindingGVR, "", "aicr-operator-plans"},
	}
	for _, k := range kept {
		_, err := dyn.Resource(k.gvr).Namespace(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
		assert.NoError(t, err, "CH-3: %s %s survives helm uninstall", k.gvr.Resource, k.name)
	}
	gone := []ref{
		{policyGVR, "", "aicr-operator-clusterruntime"},
		{deploymentGVR, releaseNamespace, "aicr-operator"},
		{clusterRoleGVR, "", "aicr-operator"},
	}
	for _, g := range gone {
		_, err := dyn.Resource(g.gvr).Namespace(g.namespace).Get(ctx, g.name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s %s is removed by helm uninstall: %v", g.gvr.Resource, g.name, err)
	}

	// The kept binding still enforces the kept policy: nobody creates a rollout while the
	// operator is uninstalled. Policies are compiled asynchronously, so poll (a dry run writes
	// nothing).
	o := rolloutObject("rollout-after-uninstall", withApproval)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	var createErr error
	assert.NoError(t, eventually(ctx, 30*time.Second, func() bool {
		_, createErr = dyn.Resource(rolloutGVR).Create(ctx, o.DeepCopy(), dryRun)
		return createErr != nil && strings.Contains(createErr.Error(), "RO-14:")
	}), "RO-14: a rollout create after uninstall is refused: last error %v", createErr)
}
