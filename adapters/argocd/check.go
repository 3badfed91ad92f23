package argocd

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// Check reports whether the engine can be used (ENG-4): ErrEngineMissing when
// the Application kind is not served, ErrProjectMissing when the configured
// AppProject does not exist and ErrUnauthorized when the operator may not
// read it or list Applications. It never mutates.
func (e *Engine) Check(ctx context.Context) error {
	if e.discovery != nil {
		served, err := ApplicationServed(e.discovery)
		if err != nil {
			return wrap("discover the Argo CD API", err)
		}
		if !served {
			return fmt.Errorf("argo CD Application kind is not served: %w", ports.ErrEngineMissing)
		}
	}
	project := &argov1.AppProject{}
	err := e.c.Get(ctx, client.ObjectKey{Namespace: e.cfg.Namespace, Name: e.cfg.Project}, project)
	if isNotFound(err) {
		return fmt.Errorf("appProject %s/%s: %w", e.cfg.Namespace, e.cfg.Project, ports.ErrProjectMissing)
	}
	if err != nil {
		return wrap("read AppProject "+e.cfg.Namespace+"/"+e.cfg.Project, err)
	}
	var apps argov1.ApplicationList
	return wrap("list applications", e.c.List(ctx, &apps, client.InNamespace(e.cfg.Namespace), client.Limit(1)))
}

// ApplicationServed reports whether the API server serves the Argo CD
// Application kind (argoproj.io/v1alpha1). It asks discovery on every call,
// so a controller can poll it and start watching Applications once the CRDs
// appear, without a restart (ENG-4).
func ApplicationServed(dc discovery.DiscoveryInterface) (bool, error) {
	resources, err := dc.ServerResourcesForGroupVersion(argov1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", argov1.SchemeGroupVersion, err)
	}
	for _, r := range resources.APIResources {
		if r.Kind == argov1.ApplicationSchemaGroupVersionKind.Kind {
			return true, nil
		}
	}
	return false, nil
}
