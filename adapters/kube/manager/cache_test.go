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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/nvidia/aicr-operator/adapters/argocd"
	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/manager"
)

// TestAKindInstalledLaterIsCachedWithoutARestart proves the late-kind cache of ENG-4: a manager
// built and started before Argo CD's CRDs exist reports that the Application kind is not
// served, and once the CRDs are installed the same manager reads Applications from a cache
// holding only the engine namespace's managed-by-labelled ones (CH-4). A repeated run (go test
// -count=N) first uninstalls the CRDs the run before it installed.
func TestAKindInstalledLaterIsCachedWithoutARestart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	uninstallArgoCDCRDs(ctx, t)
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

// uninstallArgoCDCRDs returns the control plane to a state without Argo CD's CRDs, which an
// earlier run of a test in this process installed (go test -count=N shares the control plane);
// it does nothing when they are not installed. It deletes the CRDs, and with them every
// Application and AppProject, and waits until they are gone and discovery no longer serves
// argoproj.io/v1alpha1.
func uninstallArgoCDCRDs(ctx context.Context, t *testing.T) {
	t.Helper()
	opts := argoCDCRDs()
	require.NoError(t, envtest.ReadCRDFiles(&opts))
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	require.NoError(t, err)
	var installed []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range opts.CRDs {
		err := admin.Get(ctx, client.ObjectKey{Name: crd.Name}, crdMetadata())
		if apierrors.IsNotFound(err) {
			continue
		}
		require.NoError(t, err)
		installed = append(installed, crd)
	}
	if len(installed) == 0 {
		return
	}
	// The API server deletes the objects of a CRD through the CRD's storage, built on first
	// use; until its watch cache is ready the deletion fails and backs off for up to a minute.
	// A read from the watch cache (resourceVersion 0) succeeds only once it is ready.
	var groupVersions []string
	for _, crd := range installed {
		list := &unstructured.UnstructuredList{}
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				list.SetAPIVersion(crd.Spec.Group + "/" + v.Name)
			}
		}
		list.SetKind(crd.Spec.Names.ListKind)
		groupVersions = append(groupVersions, list.GetAPIVersion())
		require.Eventually(t, func() bool {
			return admin.List(ctx, list, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}) == nil
		}, time.Minute, 50*time.Millisecond, "the watch cache of %s is ready", crd.Name)
	}
	for _, crd := range installed {
		if err := admin.Delete(ctx, crd); !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
	}
	require.Eventually(t, func() bool {
		for _, crd := range installed {
			if !apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: crd.Name}, crdMetadata())) {
				return false
			}
		}
		for _, gv := range groupVersions {
			if _, err := dc.ServerResourcesForGroupVersion(gv); !apierrors.IsNotFound(err) {
				return false
			}
		}
		return true
	}, 2*time.Minute, 50*time.Millisecond, "Argo CD's CRDs are uninstalled")
}

// crdMetadata returns an empty CustomResourceDefinition metadata object to read into.
func crdMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return m
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
