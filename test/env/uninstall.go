package env

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// uninstallPoll is how often UninstallCRDs looks again while it waits.
const uninstallPoll = 50 * time.Millisecond

// UninstallCRDs returns the control plane to a state without the CRDs opts selects, which an
// earlier run of a test in this process installed (go test -count=N shares the control plane);
// it does nothing when none is installed. It deletes the installed ones, and with them their
// objects, and returns once they are gone and discovery no longer serves their group-versions.
func (e *Env) UninstallCRDs(ctx context.Context, opts envtest.CRDInstallOptions) error {
	if err := envtest.ReadCRDFiles(&opts); err != nil {
		return fmt.Errorf("read CRDs: %w", err)
	}
	admin, err := client.New(e.Config, client.Options{})
	if err != nil {
		return err
	}
	var installed []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range opts.CRDs {
		getErr := admin.Get(ctx, client.ObjectKey{Name: crd.Name}, crdMetadata())
		if apierrors.IsNotFound(getErr) {
			continue
		}
		if getErr != nil {
			return fmt.Errorf("get CRD %s: %w", crd.Name, getErr)
		}
		installed = append(installed, crd)
	}
	if len(installed) == 0 {
		return nil
	}
	// The API server deletes the objects of a CRD through the CRD's storage, built on first
	// use; until its watch cache is ready the deletion fails and backs off for up to a minute.
	// A read from the watch cache (resourceVersion 0) succeeds only once it is ready.
	groupVersions := make([]string, 0, len(installed))
	for _, crd := range installed {
		list := storageList(crd)
		groupVersions = append(groupVersions, list.GetAPIVersion())
		if pollErr := poll(ctx, time.Minute, func(ctx context.Context) bool {
			return admin.List(ctx, list, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}) == nil
		}); pollErr != nil {
			return fmt.Errorf("the watch cache of %s is not ready: %w", crd.Name, pollErr)
		}
	}
	for _, crd := range installed {
		if delErr := admin.Delete(ctx, crd); delErr != nil && !apierrors.IsNotFound(delErr) {
			return fmt.Errorf("delete CRD %s: %w", crd.Name, delErr)
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(e.Config)
	if err != nil {
		return err
	}
	err = poll(ctx, 2*time.Minute, func(ctx context.Context) bool {
		for _, crd := range installed {
			if !apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: crd.Name}, crdMetadata())) {
				return false
			}
		}
		for _, gv := range groupVersions {
			if _, gvErr := dc.ServerResourcesForGroupVersion(gv); !apierrors.IsNotFound(gvErr) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("the CRDs are not uninstalled: %w", err)
	}
	return nil
}

// storageList is an empty list of the CRD's kind at its storage version.
func storageList(crd *apiextensionsv1.CustomResourceDefinition) *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			list.SetAPIVersion(crd.Spec.Group + "/" + v.Name)
		}
	}
	list.SetKind(crd.Spec.Names.ListKind)
	return list
}

// poll runs done every uninstallPoll until it reports true or timeout passes.
func poll(ctx context.Context, timeout time.Duration, done func(context.Context) bool) error {
	return wait.PollUntilContextTimeout(ctx, uninstallPoll, timeout, true, func(ctx context.Context) (bool, error) {
		return done(ctx), nil
	})
}

// crdMetadata returns an empty CustomResourceDefinition metadata object to read into.
func crdMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return m
}
