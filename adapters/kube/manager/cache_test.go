package manager_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/NVIDIA/aicr/adapters/argocd"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// TestAKindInstalledLaterIsCachedWithoutARestart proves the late-kind cache of ENG-4: a manager
// built and started before Argo CD's CRDs exist reports that the Application kind is not
// served, and once the CRDs are installed the same manager reads Applications from a cache
// holding only the engine namespace's managed-by-labelled ones (CH-4). A repeated run (go test
// -count=N) first uninstalls the CRDs the run before it installed.
func TestAKindInstalledLaterIsCachedWithoutARestart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, cp.UninstallCRDs(ctx, argoCDCRDs()), "a repeated run starts without the CRDs the run before it installed")
	run := runs.Add(1)
	operatorNS, engineNS, elsewhereNS := fmt.Sprintf("aicr-late-%d", run), fmt.Sprintf("argocd-late-%d", run), fmt.Sprintf("elsewhere-late-%d", run)
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	mgr, err := manager.New(cp.Config, manager.Options{
		OperatorNamespace: operatorNS, MetricsBindAddress: "0", HealthProbeBindAddress: "0",
		AddToScheme:   []func(*runtime.Scheme) error{argocd.AddToScheme},
		CacheByObject: argocd.CacheByObject(engineNS), Uncached: argocd.Uncached(),
	})
	require.NoError(t, err, "the manager is built without the kind's REST mapping")
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))

	err = mgr.GetClient().Get(ctx, client.ObjectKey{Namespace: engineNS, Name: "managed"}, argocd.NewApplicationObject())
	require.True(t, meta.IsNoMatchError(err), "before the CRDs: %v", err)

	_, err = envtest.InstallCRDs(cp.Config, argoCDCRDs())
	require.NoError(t, err)
	managed := map[string]string{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}
	for _, ns := range []string{engineNS, elsewhereNS} {
		require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		require.NoError(t, admin.Create(ctx, application(ns, "managed", managed)))
	}
	require.NoError(t, admin.Create(ctx, application(engineNS, "unlabelled", nil)))

	getCtx, getCancel := context.WithTimeout(ctx, 30*time.Second)
	defer getCancel()
	c := mgr.GetClient()
	require.NoError(t, c.Get(getCtx, client.ObjectKey{Namespace: engineNS, Name: "managed"}, argocd.NewApplicationObject()),
		"the manager built before the CRDs caches Applications once they are served")
	err = c.Get(getCtx, client.ObjectKey{Namespace: engineNS, Name: "unlabelled"}, argocd.NewApplicationObject())
	assert.True(t, apierrors.IsNotFound(err), "only the operator's Applications are cached: %v", err)
	assert.Error(t, c.Get(getCtx, client.ObjectKey{Namespace: elsewhereNS, Name: "managed"}, argocd.NewApplicationObject()),
		"only the engine namespace is cached")
	var cms corev1.ConfigMapList
	require.NoError(t, c.List(getCtx, &cms, client.InNamespace(operatorNS)), "the other kinds still come from the default cache")

	cancel()
	require.NoError(t, <-done)
}

// argoCDCRDs selects Argo CD's Application and AppProject CRDs.
func argoCDCRDs() envtest.CRDInstallOptions {
	return envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("..", "..", "..", "test", "testdata", "argocd", "crds")}, ErrorIfPathMissing: true,
	}
}

// application returns an Argo CD Application as the API server accepts it.
func application(namespace, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"project":     argocd.DefaultProject,
			"source":      map[string]any{"repoURL": "https://charts.example.com", "chart": "demo", "targetRevision": "1.0.0"},
			"destination": map[string]any{"server": argocd.InClusterServer, "namespace": "demo"},
		},
	}}
	u.SetLabels(labels)
	return u
}
