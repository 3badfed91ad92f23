package chart_test

import (
	"context"
	"testing"

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
// uninstalls it: the CRDs, namespaces, AppProject, repo-creds Secret and approval policy stay
// (CH-3), everything else, the approval binding included (ADM-5), goes.
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
	}
	for _, k := range kept {
		_, err := dyn.Resource(k.gvr).Namespace(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
		assert.NoError(t, err, "CH-3: %s %s survives helm uninstall", k.gvr.Resource, k.name)
	}
	gone := []ref{
		{bindingGVR, "", "aicr-operator-approval"},
		{policyGVR, "", "aicr-operator-plans"},
		{policyGVR, "", "aicr-operator-clusterruntime"},
		{deploymentGVR, releaseNamespace, "aicr-operator"},
		{clusterRoleGVR, "", "aicr-operator"},
	}
	for _, g := range gone {
		_, err := dyn.Resource(g.gvr).Namespace(g.namespace).Get(ctx, g.name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s %s is removed by helm uninstall: %v", g.gvr.Resource, g.name, err)
	}
}
